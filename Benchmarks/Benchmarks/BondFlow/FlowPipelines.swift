// S19a and S19b: 2M records of 128 bytes, pulled by `send(contentsOf:)` from an async generator,
// through a stage (or two, or a partition) into an observer that works ~1 µs per record.
//
// Per case: the peak resident memory of the process, the records delivered (and whether each
// observer saw them in order: all of them, exactly once, for the lossless cases), the records
// dropped, the times the stages came under pressure, the most records generated and not yet
// consumed ("in flight", sampled), and the time from the first pull to the last record's work.
import BenchWork
import Bond
import Dispatch
import Synchronization

/// A 128-byte record: its number and 15 words of payload.
struct Record: Numbered {
  let number: Int
  let payload:
    (
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
      UInt64, UInt64
    )

  init(number: Int) {
    self.number = number
    let word = UInt64(truncatingIfNeeded: number) &* 0x9E37_79B9_7F4A_7C15
    payload = (word, word, word, word, word, word, word, word, word, word, word, word, word, word, word)
  }

  /// Reads the record (its first and last words), so the observer touches what was sent.
  var checksum: UInt64 { UInt64(truncatingIfNeeded: number) &+ payload.0 &+ payload.14 }
}

/// An event the generator can make from its number, and the observer can check the order by.
protocol Numbered: Sendable {
  init(number: Int)
  var number: Int { get }
  /// What the observer adds into its sum (`blackHole`-like: keeps the reads alive).
  var checksum: UInt64 { get }
}

extension Int: Numbered {
  init(number: Int) { self = number }
  var number: Int { self }
  var checksum: UInt64 { UInt64(bitPattern: Int64(self)) }
}

/// How many elements the generators have made, stored every 256th (the consumers sample it).
final class Progress: Sendable {
  let generated = Atomic<Int>(0)
}

/// The async generator: elements 0..<count, each made when it is pulled.
struct Generator<Element: Numbered>: AsyncSequence, Sendable {
  let count: Int
  let progress: Progress

  struct AsyncIterator: AsyncIteratorProtocol {
    var number = 0
    let count: Int
    let progress: Progress

    mutating func next() async -> Element? {
      guard number < count else { return nil }
      if number & 255 == 0 { progress.generated.store(number, ordering: .relaxed) }
      defer { number += 1 }
      return Element(number: number)
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count, progress: progress) }
}

/// One observer's record of what it received. `@unchecked Sendable`: touched only by the serial
/// queue that delivers to that observer, and read after its end was delivered (the completion is
/// the happens-before edge).
final class InOrder: @unchecked Sendable {
  /// Works this long per element (busy on the clock; 0: an idle consumer).
  let workNanoseconds: UInt64
  let progress: Progress
  let statistics: DeliveryStatistics?
  var delivered = 0
  var last = -1
  /// Elements whose number was not above the one before (each observer must see increasing numbers).
  var outOfOrder = 0
  var checksum: UInt64 = 0
  /// The most elements generated and not yet received, and the most waiting in the stages'
  /// buffers (`DeliveryStatistics.bufferedCount`), both sampled every 1,024 elements.
  var maxInFlight = 0
  var maxBuffered = 0

  init(workNanoseconds: UInt64, progress: Progress, statistics: DeliveryStatistics?) {
    self.workNanoseconds = workNanoseconds
    self.progress = progress
    self.statistics = statistics
  }

  @inline(__always)
  func receive(_ element: some Numbered) {
    if element.number <= last { outOfOrder += 1 }
    last = element.number
    delivered += 1
    if delivered & 1023 == 0 {
      maxInFlight = max(maxInFlight, progress.generated.load(ordering: .relaxed) - element.number)
      if let statistics { maxBuffered = max(maxBuffered, statistics.bufferedCount) }
    }
    checksum &+= element.checksum
    if workNanoseconds > 0 {
      let end = now() &+ workNanoseconds
      while now() < end {}
    }
  }
}

/// How long S19a's and S19b's observers work per record.
let recordWorkNanoseconds: UInt64 = 1_000
/// The stages' buffer limit (the high watermark; the low one is half).
let flowBufferLimit = 10_000

enum FlowPipeline: String {
  case s19aBackpressure = "S19a-backpressure"
  case s19aUnbounded = "S19a-unbounded"
  case s19aDropOldest = "S19a-dropOldest"
  case s19bTwoStages = "S19b-two-stages"
  case s19bTwoStagesUnbounded = "S19b-two-stages-unbounded"
  case s19bPartition = "S19b-partition"
  case s19bPartitionUnbounded = "S19b-partition-unbounded"

  /// Whether every record must arrive (the `.backpressure` and unbounded cases).
  var lossless: Bool { self != .s19aDropOldest }

  /// Connects `observers` (one per lane; one otherwise) to `producer`; returns what to dispose.
  func connect(
    _ producer: EventProducer<Record>,
    _ observers: [InOrder],
    _ statistics: DeliveryStatistics,
    _ completion: Completion
  ) -> [any DisposableType] {
    func queue(_ index: Int) -> DispatchQueue { DispatchQueue(label: "bench.\(rawValue).\(index)") }
    let observer = observers[0]
    let receive: (Record) -> Void = { observer.receive($0) }
    let finished = { completion.finishOne() }
    switch self {
    case .s19aBackpressure:
      return [
        producer.deliverOn(queue(0), bufferLimit: flowBufferLimit, whenFull: .backpressure, statistics: statistics)
          .observe(receive, finished: finished)
      ]
    case .s19aUnbounded:
      return [producer.deliverOn(queue(0)).observe(receive, finished: finished)]
    case .s19aDropOldest:
      return [
        producer.deliverOn(queue(0), bufferLimit: flowBufferLimit, whenFull: .dropOldest, statistics: statistics)
          .observe(receive, finished: finished)
      ]
    case .s19bTwoStages:
      return [
        producer.deliverOn(queue(0), bufferLimit: flowBufferLimit, whenFull: .backpressure, statistics: statistics)
          .deliverOn(queue(1), bufferLimit: flowBufferLimit, whenFull: .backpressure, statistics: statistics)
          .observe(receive, finished: finished)
      ]
    case .s19bTwoStagesUnbounded:
      return [producer.deliverOn(queue(0)).deliverOn(queue(1)).observe(receive, finished: finished)]
    case .s19bPartition, .s19bPartitionUnbounded:
      let key: @Sendable (Record) -> Int = { $0.number % 1_000 }
      let partition =
        self == .s19bPartition
        ? producer.partition(
          lanes: observers.count,
          bufferLimit: flowBufferLimit,
          whenFull: .backpressure,
          statistics: statistics,
          by: key
        )
        : producer.partition(lanes: observers.count, by: key)
      let lanes = zip(partition.lanes, observers).map { lane, laneObserver in
        lane.observe({ laneObserver.receive($0) }, finished: finished)
      }
      return lanes + [partition]
    }
  }

  func run(records: Int) async -> [(String, Any)] {
    let startMiB = peakMiB()
    let progress = Progress()
    let statistics = DeliveryStatistics()
    let lanes = self == .s19bPartition || self == .s19bPartitionUnbounded ? 2 : 1
    let observers = (0..<lanes).map { _ in
      InOrder(workNanoseconds: recordWorkNanoseconds, progress: progress, statistics: statistics)
    }
    let completion = Completion(count: lanes)
    let producer = EventProducer<Record>()
    let disposables = connect(producer, observers, statistics, completion)
    let start = now()
    do {
      try await producer.send(contentsOf: Generator<Record>(count: records, progress: progress))
      producer.finish()  // send(contentsOf:) leaves the end to its caller
    } catch {
      fail("\(rawValue): send(contentsOf:) threw \(error)")
    }
    await completion.wait()
    let seconds = Double(now() - start) / 1e9
    for disposable in disposables { disposable.dispose() }
    let delivered = observers.reduce(0) { $0 + $1.delivered }
    let outOfOrder = observers.reduce(0) { $0 + $1.outOfOrder }
    return [
      ("case", rawValue), ("records", records), ("lanes", lanes), ("peak_mib", peakMiB()),
      ("start_mib", startMiB), ("delivered", delivered), ("out_of_order", outOfOrder),
      ("all_in_order", delivered == records && outOfOrder == 0), ("lossless", lossless),
      ("dropped", statistics.droppedCount), ("pressures", statistics.pressureCount),
      ("max_buffered", observers.map(\.maxBuffered).max() ?? 0),
      ("max_in_flight", observers.map(\.maxInFlight).max() ?? 0), ("seconds", seconds),
      ("checksum", observers.reduce(0) { $0 &+ $1.checksum } & 0xFFFF),
    ]
  }
}
