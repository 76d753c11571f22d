import BondTesting
import Dispatch
import Testing

/// Per-key sums; used from one lane, so from one thread at a time.
final class Totals: @unchecked Sendable {
  var sums: [String: Int] = [:]
  func add(_ value: Int, to key: String) -> String {
    sums[key, default: 0] += value
    return "\(key)=\(sums[key]!)"
  }
}

/// An async lookup: a database or a service in a real pipeline.
func calibration(of sensor: String) async -> Int {
  // Simulated latency: the verdict waits for the pipeline's end, whatever the timing.
  try? await Task.sleep(nanoseconds: 10_000)
  return sensor == "sensor0" ? 1 : 0
}

@Suite struct ReadmePipelineTests {
  @Test func buildingAPipeline() async throws {
    let lines = AsyncStream<String> { continuation in
      for index in 0..<1_000 { continuation.yield("sensor\(index % 4) \(index)") }
      continuation.finish()
    }
    let stats = DeliveryStatistics()
    let input = EventProducer<(key: String, value: Int)>()
    let enriched = input.map(maxConcurrent: 4, bufferLimit: 64) { reading in
      (key: reading.key, value: reading.value + (await calibration(of: reading.key)))
    }
    let partition = enriched.partition(lanes: 2, bufferLimit: 64, whenFull: .backpressure, statistics: stats) {
      $0.key
    }
    let totals = partition.lanes.map { lane in
      let sums = Totals()  // one per lane: a lane delivers one event at a time
      return lane.map { reading in sums.add(reading.value, to: reading.key) }
    }
    let (printed, printedEnd) = AsyncStream<Void>.makeStream()
    let received = Recorder<String>()
    merge(totals)
      .batches(
        on: DispatchQueue(label: "printer"),
        maxCount: 100,
        bufferLimit: 64,
        whenFull: .backpressure,
        statistics: stats
      )
      .observe { batch in
        print("\(batch.count) running totals, last: \(batch.last!), waiting: \(stats.bufferedCount)")
        batch.forEach(received.add)
      } finished: {
        printedEnd.finish()
      }
    try await input.send(
      contentsOf: lines.map { line in
        let parts = line.split(separator: " ")
        return (key: String(parts[0]), value: Int(parts[1])!)
      }
    )
    input.finish()  // send(contentsOf:) leaves the end to its caller
    for await _ in printed {}  // the end reached the printer (suspended: no thread blocked)
    // Every reading arrived (nothing dropped), and each key's last running total is its sum (the
    // enrichment added 1 to each of sensor0's 250 readings).
    let items = received.items
    #expect(items.count == 1_000 && stats.droppedCount == 0 && stats.bufferedCount == 0)
    for key in 0..<4 {
      let expected = stride(from: key, to: 1_000, by: 4).reduce(0, +) + (key == 0 ? 250 : 0)
      #expect(items.last { $0.hasPrefix("sensor\(key)=") } == "sensor\(key)=\(expected)")
    }
  }
}
