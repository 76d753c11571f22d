import Bond
import BondMetrics
import Foundation
import MetricsTestKit
import Synchronization
import Testing

/// `StageMetrics` while its stage is flooded: the counters it records add up to the statistics'
/// totals exactly, however its updates interleave with the drains and with each other.
@Suite struct StageMetricsStressTests {
  /// 4 senders flood a partition (dropping, and timing one event in 64) while 2 threads update its
  /// metrics: at the end every event is delivered or dropped, and the series say so exactly.
  @Test func updatesDuringAFloodRecordEveryEventOnce() {
    withWatchdog("updatesDuringAFloodRecordEveryEventOnce", seconds: 120) {
      let metrics = TestMetrics()
      let source = EventProducer<Int>()
      let stats = DeliveryStatistics(latencySampleEvery: 64)
      let stage = StageMetrics(stage: "lanes", statistics: stats, factory: metrics)
      let partition = source.partition(lanes: 4, bufferLimit: 256, whenFull: .dropOldest, statistics: stats) { $0 }
      let received = Counter()
      for lane in partition.lanes { lane.observe { _ in received.increment() } }
      let perSender = 20_000 * stressScale
      let total = 4 * perSender
      let stop = Atomic<Bool>(false)
      let updaters = DispatchGroup()
      for _ in 0..<2 {
        updaters.enter()
        Thread.detachNewThread {
          // acquiring: pairs with the releasing store below (nothing else is published by it).
          while !stop.load(ordering: .acquiring) { stage.update() }
          updaters.leave()
        }
      }
      runTogether(threads: 4) { sender in
        for sequence in 0..<perSender { source.next(sequence * 4 + sender) }
      }
      #expect(waitUntil { stats.deliveredCount + stats.droppedCount == total })
      stop.store(true, ordering: .releasing)
      updaters.wait()
      stage.update()
      let delivered = metrics.counterTotal(label: "bond_stage_delivered_total", dimensions: [("stage", "lanes")])
      let dropped = metrics.counterTotal(label: "bond_stage_dropped_total", dimensions: [("stage", "lanes")])
      #expect(delivered == Int64(stats.deliveredCount) && dropped == Int64(stats.droppedCount))
      #expect(delivered + dropped == Int64(total), "\(delivered) delivered + \(dropped) dropped of \(total)")
      #expect(received.count == stats.deliveredCount && stats.bufferedCount == 0)
      let timer = try? metrics.expectTimer("bond_stage_latency_seconds", [("stage", "lanes")])
      #expect(timer?.values.count == stats.latencySampleCount && stats.latencySampleCount > 0)
      #expect((try? metrics.expectGauge("bond_stage_buffered", [("stage", "lanes")]))?.lastValue == 0)
      partition.dispose()
    }
  }

  /// A lossless partition (`.backpressure`, async senders that wait): every event delivered, the
  /// delivered counter exact, the pressure counter what the statistics counted.
  @Test func aBackpressurePartitionsCountersAreExact() async {
    await withWatchdog("aBackpressurePartitionsCountersAreExact", seconds: 120) {
      let metrics = TestMetrics()
      let source = EventProducer<Int>()
      let stats = DeliveryStatistics(latencySampleEvery: 16)
      let stage = StageMetrics(stage: "lossless", statistics: stats, factory: metrics)
      let partition = source.partition(lanes: 4, bufferLimit: 32, whenFull: .backpressure, statistics: stats) { $0 }
      let received = Counter()
      for lane in partition.lanes { lane.observe { _ in received.increment() } }
      let perSender = 3_000 * stressScale
      let updating = Task { try await stage.run(every: .milliseconds(1)) }
      await withTaskGroup(of: Void.self) { group in
        for sender in 0..<4 {
          group.addTask {
            for sequence in 0..<perSender { try? await source.send(sequence * 4 + sender) }
          }
        }
      }
      #expect(waitUntil { stats.deliveredCount == 4 * perSender })
      updating.cancel()
      _ = await updating.result
      let dimensions = [("stage", "lossless")]
      #expect(metrics.counterTotal(label: "bond_stage_delivered_total", dimensions: dimensions) == Int64(4 * perSender))
      #expect(metrics.counterTotal(label: "bond_stage_dropped_total", dimensions: dimensions) == 0)
      #expect(
        metrics.counterTotal(label: "bond_stage_pressure_total", dimensions: dimensions) == Int64(stats.pressureCount)
      )
      #expect(received.count == 4 * perSender)
      partition.dispose()
    }
  }
}
