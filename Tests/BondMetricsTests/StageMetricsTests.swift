import BondMetrics
import BondTesting
import Dispatch
import Foundation
import MetricsTestKit
import Testing

/// `StageMetrics` against swift-metrics' test backend: each series, its dimension, the deltas
/// across updates, the latency samples, concurrent updates, and `run(every:)`.
@Suite struct StageMetricsTests {
  let lanes = [("stage", "lanes")]

  @Test func eachSeriesHasItsNameAndTheStageDimension() throws {
    let metrics = TestMetrics()
    let stats = DeliveryStatistics()
    let stage = StageMetrics(stage: "lanes", statistics: stats, factory: metrics)
    stage.update()
    #expect(try metrics.expectCounter("bond_stage_delivered_total", lanes).totalValue == 0)
    #expect(try metrics.expectCounter("bond_stage_dropped_total", lanes).totalValue == 0)
    #expect(try metrics.expectCounter("bond_stage_pressure_total", lanes).totalValue == 0)
    #expect(try metrics.expectGauge("bond_stage_buffered", lanes).lastValue == 0)
    #expect(try metrics.expectTimer("bond_stage_latency_seconds", lanes).values == [])
    #expect(StageMetrics.Series.delivered == "bond_stage_delivered_total")
    #expect(stage.stage == "lanes" && stage.statistics === stats)
  }

  /// A bounded stage that drops: the counters record what was counted since the previous update,
  /// the gauge what waits now.
  @Test func theCountersRecordTheDeltasAndTheGaugeTheBufferNow() throws {
    let metrics = TestMetrics()
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let stage = StageMetrics(stage: "lanes", statistics: stats, factory: metrics)
    let observation = source.deliverOn(clock, bufferLimit: 2, whenFull: .dropOldest, statistics: stats)
      .observe { _ in }
    for value in 1...5 { source.next(value) }
    stage.update()
    let delivered = try metrics.expectCounter("bond_stage_delivered_total", lanes)
    let dropped = try metrics.expectCounter("bond_stage_dropped_total", lanes)
    let buffered = try metrics.expectGauge("bond_stage_buffered", lanes)
    #expect(delivered.values == [] && dropped.values == [3] && buffered.lastValue == 2)
    clock.run()
    for value in 6...10 { source.next(value) }
    clock.run()
    stage.update()
    #expect(delivered.values == [4] && dropped.values == [3, 3] && buffered.lastValue == 0)
    stage.update()  // nothing new: no increment, the gauge again
    #expect(delivered.totalValue == 4 && dropped.totalValue == 6 && buffered.values == [2, 0, 0])
    observation.dispose()
  }

  @Test func thePressureCounterCountsEachTimeUnderPressure() throws {
    let metrics = TestMetrics()
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let stage = StageMetrics(stage: "lanes", statistics: stats, factory: metrics)
    let observation = source.deliverOn(clock, bufferLimit: 4, whenFull: .backpressure, statistics: stats)
      .observe { _ in }
    for round in 0..<3 {
      for value in 0..<4 { source.next(round * 4 + value) }
      clock.run()
    }
    stage.update()
    #expect(try metrics.expectCounter("bond_stage_pressure_total", lanes).values == [3])
    #expect(try metrics.expectCounter("bond_stage_delivered_total", lanes).values == [12])
    observation.dispose()
  }

  /// The queue is held for 20 ms after the timed event is sent: its sample is at least that, and
  /// the timer holds exactly the statistics' sample.
  @Test func theTimerRecordsEachLatencySample() throws {
    let metrics = TestMetrics()
    let queue = DispatchQueue(label: "metrics.latency")
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics(latencySampleEvery: 1_000)
    _ = StageMetrics(stage: "lanes", statistics: stats, factory: metrics)
    let observation = source.deliverOn(queue, bufferLimit: 16, whenFull: .dropOldest, statistics: stats)
      .observe { _ in }
    let held = DispatchSemaphore(value: 0)
    queue.async { held.wait() }
    source.next(1)  // timed (the first), delivered once the queue is let go
    source.next(2)  // not timed
    Thread.sleep(forTimeInterval: 0.02)
    held.signal()
    let deadline = Date().addingTimeInterval(10)
    while stats.deliveredCount < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
    let timer = try metrics.expectTimer("bond_stage_latency_seconds", lanes)
    let (seconds, attoseconds) = stats.latencyTotal.components
    #expect(stats.latencySampleCount == 1 && timer.values == [seconds * 1_000_000_000 + attoseconds / 1_000_000_000])
    #expect(stats.latencyTotal >= .milliseconds(20) && stats.latencyTotal < .seconds(10))
    observation.dispose()
  }

  @Test func withSamplingOffTheTimerStaysEmpty() throws {
    let metrics = TestMetrics()
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let stage = StageMetrics(stage: "lanes", statistics: stats, factory: metrics)
    let observation = source.deliverOn(clock).observe { _ in }
    let counted = source.deliverOn(clock, bufferLimit: 8, whenFull: .dropNewest, statistics: stats).observe { _ in }
    for value in 0..<4 { source.next(value) }
    clock.run()
    stage.update()
    #expect(try metrics.expectTimer("bond_stage_latency_seconds", lanes).values == [])
    #expect(try metrics.expectCounter("bond_stage_delivered_total", lanes).totalValue == 4)
    observation.dispose()
    counted.dispose()
  }

  /// Many updates at once record each counted event once.
  @Test func concurrentUpdatesNeverCountTwice() throws {
    let metrics = TestMetrics()
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let stage = StageMetrics(stage: "lanes", statistics: stats, factory: metrics)
    let observation = source.deliverOn(clock, bufferLimit: 10_000, whenFull: .dropNewest, statistics: stats)
      .observe { _ in }
    for value in 0..<1_000 { source.next(value) }
    clock.run()
    DispatchQueue.concurrentPerform(iterations: 16) { _ in stage.update() }
    #expect(try metrics.expectCounter("bond_stage_delivered_total", lanes).totalValue == 1_000)
    observation.dispose()
  }

  @Test func updateAllUpdatesEachStage() throws {
    let metrics = TestMetrics()
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let first = DeliveryStatistics()
    let second = DeliveryStatistics()
    let stages = [
      StageMetrics(stage: "first", statistics: first, factory: metrics),
      StageMetrics(stage: "second", statistics: second, factory: metrics),
    ]
    let a = source.deliverOn(clock, bufferLimit: 8, whenFull: .dropOldest, statistics: first).observe { _ in }
    let b = source.batches(on: clock, maxCount: 2, bufferLimit: 8, whenFull: .dropOldest, statistics: second)
      .observe { _ in }
    for value in 0..<3 { source.next(value) }
    clock.run()
    StageMetrics.update(stages)
    #expect(try metrics.expectCounter("bond_stage_delivered_total", [("stage", "first")]).totalValue == 3)
    #expect(try metrics.expectCounter("bond_stage_delivered_total", [("stage", "second")]).totalValue == 3)
    a.dispose()
    b.dispose()
  }

  /// `run(every:)` updates until cancelled, then updates once more and throws.
  @Test func runUpdatesUntilCancelled() async throws {
    let metrics = TestMetrics()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let stage = StageMetrics(stage: "lanes", statistics: stats, factory: metrics)
    let observation = source.deliverOn(
      DispatchQueue(label: "metrics.run"),
      bufferLimit: 64,
      whenFull: .dropNewest,
      statistics: stats
    )
    .observe { _ in }
    let running = Task { try await stage.run(every: .milliseconds(5)) }
    let delivered = try metrics.expectCounter("bond_stage_delivered_total", lanes)
    source.next(1)
    let deadline = Date().addingTimeInterval(60)  // outcomes waited for; generous for a loaded machine
    while delivered.totalValue < 1 && Date() < deadline { try await Task.sleep(for: .milliseconds(2)) }
    #expect(delivered.totalValue == 1, "run recorded the first event")
    source.next(2)
    // The cancelled run updates a last time, once the drain has reported the event.
    while stats.deliveredCount < 2 && Date() < deadline { try await Task.sleep(for: .milliseconds(2)) }
    running.cancel()
    await #expect(throws: CancellationError.self) { try await running.value }
    #expect(delivered.totalValue == 2)
    observation.dispose()
  }

  @Test func aZeroIntervalStops() async {
    await #expect(processExitsWith: .failure) {
      let stage = StageMetrics(stage: "lanes", statistics: DeliveryStatistics(), factory: TestMetrics())
      try? await stage.run(every: .zero)
    }
  }
}
