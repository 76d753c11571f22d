import BondTesting
import Dispatch
import Testing

/// A clocked scheduler whose `schedule(_:)` runs its action `lag` seconds later on a
/// `TestScheduler`, so that an event waits a known virtual time between `next` and its delivery.
private final class LaggingScheduler: ClockedScheduler {
  let clock = TestScheduler()
  let lag: Double
  init(lag: Double) { self.lag = lag }
  var now: Double { clock.now }
  func schedule(_ action: @escaping @Sendable () -> Void) {
    clock.schedule(after: lag, action)
  }
  func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any DisposableType {
    clock.schedule(after: seconds, action)
  }
}

/// `DeliveryStatistics`: the delivered count of every bounded stage (both drains, arrays, lanes)
/// and the latency samples on virtual time.
@Suite struct DeliveryStatisticsTests {
  // MARK: - deliveredCount

  @Test func anUnboundedDeliveryCountsWhatItDelivers() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let received = Recorder<Int>()
    let observation = source.deliverOn(clock, bufferLimit: .max, whenFull: .dropOldest, statistics: stats)
      .observe { received.add($0) }
    for value in 0..<2_500 { source.next(value) }  // more than one drain's share (1024)
    #expect(stats.deliveredCount == 0 && stats.bufferedCount == 2_500)
    clock.run()
    #expect(received.items.count == 2_500)
    #expect(stats.deliveredCount == 2_500 && stats.bufferedCount == 0 && stats.droppedCount == 0)
    observation.dispose()
  }

  @Test func aDroppingStageCountsOnlyWhatItHandsOver() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let received = Recorder<Int>()
    let observation = source.deliverOn(clock, bufferLimit: 2, whenFull: .dropOldest, statistics: stats)
      .observe { received.add($0) }
    for value in 1...5 { source.next(value) }
    clock.run()
    #expect(received.items == [4, 5])
    #expect(stats.deliveredCount == 2 && stats.droppedCount == 3 && stats.bufferedCount == 0)
    observation.dispose()
  }

  @Test func aBackpressureStageCountsItsChunks() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let observation = source.deliverOn(clock, bufferLimit: 100, whenFull: .backpressure, statistics: stats)
      .observe { _ in }
    for value in 0..<250 { source.next(value) }
    clock.run()
    #expect(stats.deliveredCount == 250 && stats.pressureCount == 1 && stats.bufferedCount == 0)
    observation.dispose()
  }

  @Test func batchesCountEventsNotArrays() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let unbounded = DeliveryStatistics()
    let bounded = DeliveryStatistics()
    let arrays = Recorder<[Int]>()
    let first = source.batches(on: clock, maxCount: 3, bufferLimit: .max, whenFull: .dropOldest, statistics: unbounded)
      .observe { arrays.add($0) }
    let second = source.batches(on: clock, maxCount: 3, bufferLimit: 4, whenFull: .dropNewest, statistics: bounded)
      .observe { _ in }
    for value in 0..<10 { source.next(value) }
    clock.run()
    #expect(arrays.items == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]])
    #expect(unbounded.deliveredCount == 10)
    #expect(bounded.deliveredCount == 4 && bounded.droppedCount == 6)
    first.dispose()
    second.dispose()
  }

  @Test func aPartitionCountsEveryLane() {
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let partition = source.partition(lanes: 4, bufferLimit: 64, whenFull: .backpressure, statistics: stats) { $0 }
    let received = Recorder<Int>()
    for lane in partition.lanes { lane.observe { received.add($0) } }
    for value in 0..<1_000 { source.next(value) }
    #expect(waitUntil { stats.deliveredCount == 1_000 }, "\(stats.deliveredCount) of 1000")
    #expect(received.items.count == 1_000 && stats.bufferedCount == 0)
    partition.dispose()
  }

  @Test func theCountIsInBeforeTheEnd() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let atEnd = Recorder<Int>()
    source.deliverOn(clock, bufferLimit: .max, whenFull: .dropOldest, statistics: stats)
      .observe({ _ in }, finished: { atEnd.add(stats.deliveredCount) })
    for value in 0..<7 { source.next(value) }
    source.finish()
    clock.run()
    #expect(atEnd.items == [7])
  }

  @Test func aDisposeInTheMiddleOfABurstCountsWhatWasHandedOver() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let observation = SerialDisposable()
    observation.otherDisposable = source.deliverOn(clock, bufferLimit: .max, whenFull: .dropOldest, statistics: stats)
      .observe { value in if value == 2 { observation.dispose() } }
    for value in 0..<10 { source.next(value) }
    clock.run()
    #expect(stats.deliveredCount == 3 && stats.bufferedCount == 0)
  }

  // MARK: - Latency sampling

  @Test func samplingIsOffByDefault() {
    let scheduler = LaggingScheduler(lag: 0.25)
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let observation = source.deliverOn(scheduler, bufferLimit: .max, whenFull: .dropOldest, statistics: stats)
      .observe { _ in }
    for value in 0..<10 { source.next(value) }
    scheduler.clock.run()
    #expect(stats.latencySampleEvery == 0 && stats.latencySampleCount == 0 && stats.latencyMax == .zero)
    observation.dispose()
  }

  /// One event in two is timed, one at a time, on the scheduler's virtual clock.
  @Test func aSampledEventIsTimedFromNextToItsDelivery() {
    let scheduler = LaggingScheduler(lag: 0.25)
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics(latencySampleEvery: 2)
    let samples = Recorder<Duration>()
    stats.onLatencySample { samples.add($0) }
    let observation = source.deliverOn(scheduler, bufferLimit: .max, whenFull: .dropOldest, statistics: stats)
      .observe { _ in }
    source.next(1)  // the first event is timed: sent at 0, delivered by the drain due at 0.25
    scheduler.clock.advance(to: 0.25)
    source.next(2)  // not timed; its drain is due at 0.5
    scheduler.clock.advance(to: 0.35)
    source.next(3)  // timed: sent at 0.35, delivered by the same drain at 0.5
    scheduler.clock.advance(to: 1)
    #expect(samples.items == [.milliseconds(250), .milliseconds(150)])
    #expect(stats.latencySampleCount == 2 && stats.latencyTotal == .milliseconds(400))
    #expect(stats.latencyMax == .milliseconds(250))
    observation.dispose()
  }

  @Test func aDroppedEventIsNotTimed() {
    let scheduler = LaggingScheduler(lag: 0.25)
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics(latencySampleEvery: 2)
    let observation = source.deliverOn(scheduler, bufferLimit: 1, whenFull: .dropOldest, statistics: stats)
      .observe { _ in }
    source.next(1)  // timed, then dropped by 2 (not timed)
    source.next(2)
    scheduler.clock.run()
    #expect(stats.deliveredCount == 1 && stats.droppedCount == 1 && stats.latencySampleCount == 0)
    source.next(3)  // timed, delivered
    scheduler.clock.run()
    #expect(stats.latencySampleCount == 1 && stats.latencyMax == .milliseconds(250))
    observation.dispose()
  }

  @Test func anArrayTimesTheSampleItHolds() {
    let scheduler = LaggingScheduler(lag: 0.5)
    let source = EventProducer<Int>()
    let unbounded = DeliveryStatistics(latencySampleEvery: 1)
    let bounded = DeliveryStatistics(latencySampleEvery: 1)
    let first = source.batches(
      on: scheduler,
      maxCount: 2,
      bufferLimit: .max,
      whenFull: .dropOldest,
      statistics: unbounded
    )
    .observe { _ in }
    let second = source.batches(
      on: scheduler,
      maxCount: 2,
      bufferLimit: 8,
      whenFull: .backpressure,
      statistics: bounded
    )
    .observe { _ in }
    for value in 0..<5 { source.next(value) }
    scheduler.clock.run()
    for stats in [unbounded, bounded] {
      #expect(stats.deliveredCount == 5 && stats.latencySampleCount == 1 && stats.latencyTotal == .milliseconds(500))
    }
    first.dispose()
    second.dispose()
  }

  @Test func aBackpressureChunkTimesItsSample() {
    let scheduler = LaggingScheduler(lag: 0.125)
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics(latencySampleEvery: 3)
    let observation = source.deliverOn(scheduler, bufferLimit: 64, whenFull: .backpressure, statistics: stats)
      .observe { _ in }
    for value in 0..<10 { source.next(value) }
    scheduler.clock.run()
    #expect(stats.deliveredCount == 10 && stats.latencySampleCount == 1 && stats.latencyMax == .milliseconds(125))
    observation.dispose()
  }

  @Test func aNegativeSamplingRateStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = DeliveryStatistics(latencySampleEvery: -1)
    }
    #expect(
      exitTestStandardError(result).contains(
        "DeliveryStatistics(latencySampleEvery:): latencySampleEvery must be 0 or more, got -1"
      )
    )
  }
}
