import BondTesting
import Dispatch
import Foundation
import Testing

@testable import Bond

/// Flow control (CONTRACT.md, "Flow control: lossless and bounded"), rule by rule, on a
/// `TestScheduler` so that every step is deterministic.
@Suite struct FlowControlTests {
  // Rule 1: the watermarks.
  @Test func aBackpressureStageIsUnderPressureFromTheLimitDownToHalfOfIt() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let received = Recorder<Int>()
    let observation = source.deliverOn(clock, bufferLimit: 4, whenFull: .backpressure, statistics: stats)
      .observe { received.add($0) }
    var writable: [Bool] = []
    for value in 1...5 {
      source.next(value)
      writable.append(source.isWritable)
    }
    // 1, 2, 3 below the limit; 4 reaches it; 5 is queued all the same (next never waits).
    #expect(writable == [true, true, true, false, false])
    #expect(stats.bufferedCount == 5 && stats.pressureCount == 1 && stats.droppedCount == 0)
    clock.run()
    #expect(received.items == [1, 2, 3, 4, 5])
    #expect(source.isWritable && stats.bufferedCount == 0 && stats.pressureCount == 1)
    observation.dispose()
  }

  /// The hysteresis, step by step: the drain is paused by a downstream stage that takes one event
  /// per `run`, so the low watermark is crossed at a known event.
  @Test func theReleaseComesAtTheLowWatermarkNotAtTheFirstEventOut() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    source.writability.observe { log.add($0 ? "writable" : "not writable") }
    source.deliverOn(clock, bufferLimit: 4, whenFull: .backpressure).observe { value in
      log.add("got \(value) writable=\(source.isWritable)")
    }
    for value in 1...4 { source.next(value) }
    clock.run()
    #expect(
      log.items == [
        "writable", "not writable",
        "got 1 writable=false",  // 3 waiting: still under pressure
        "writable",  // 2 waiting after taking 2: the low watermark (4 / 2)
        "got 2 writable=true",
        "got 3 writable=true",
        "got 4 writable=true",
      ]
    )
  }

  @Test func writabilitySendsTheCurrentValueAtOnceThenEachChangeOnce() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let first = Recorder<Bool>()
    source.writability.observe { first.add($0) }
    #expect(first.items == [true])
    source.deliverOn(clock, bufferLimit: 2, whenFull: .backpressure).observe { _ in }
    source.next(1)
    source.next(2)
    source.next(3)
    let late = Recorder<Bool>()
    source.writability.observe { late.add($0) }
    #expect(first.items == [true, false])
    #expect(late.items == [false], "a later observer gets the current value")
    clock.run()
    #expect(first.items == [true, false, true] && late.items == [false, true])
  }

  // Rule 2: pressure travels upstream through every kind of operator.
  @Test func pressureReachesEverySourceThroughTheOperators() {
    let clock = TestScheduler()
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let c = EventProducer<Int>()
    let d = EventProducer<Int>()
    let e = EventProducer<Int>()
    let chains: [AnyEventProducer<Int>] = [
      a.map { $0 + 1 }.filter { _ in true }.compactMap { $0 }.eraseToAnyEventProducer(),
      combineLatest(b, c).map { $0 + $1 }.eraseToAnyEventProducer(),
      d.zipWith(e).map { $0 + $1 }.eraseToAnyEventProducer(),
    ]
    for chain in chains {
      chain.deliverOn(clock, bufferLimit: 1, whenFull: .backpressure).observe { _ in }
    }
    a.next(1)
    #expect(!a.isWritable, "through the synchronous operators")
    c.next(1)
    #expect(b.isWritable && c.isWritable, "no tuple yet: nothing waits")
    b.next(1)
    #expect(!b.isWritable && !c.isWritable, "every source of combineLatest")
    d.next(1)
    e.next(1)
    #expect(!d.isWritable && !e.isWritable, "every source of zip")
    clock.run()
    #expect([a, b, c, d, e].allSatisfy { $0.isWritable }, "all released once drained")
  }

  /// zip holds at most 1,024 unmatched events of a source when a `.backpressure` stage is
  /// downstream: a source far ahead of the others is held back until it is matched down to 512.
  @Test func zipHoldsBackASourceFarAheadOfTheOthers() {
    let clock = TestScheduler()
    let fast = EventProducer<Int>()
    let silent = EventProducer<Int>()
    let received = Recorder<Int>()
    fast.zipWith(silent).deliverOn(clock, bufferLimit: 10_000, whenFull: .backpressure).observe { pair in
      received.add(pair.0)
    }
    for value in 0..<1_023 { fast.next(value) }
    #expect(fast.isWritable)
    fast.next(1_023)
    #expect(!fast.isWritable && silent.isWritable, "1,024 unmatched: the fast source is held back, not the silent one")
    for value in 0..<511 { silent.next(value) }
    #expect(!fast.isWritable, "513 still unmatched")
    silent.next(511)
    #expect(fast.isWritable, "512 unmatched: released")
    clock.run()
    #expect(received.items == Array(0..<512))

    // With no `.backpressure` stage downstream, zip holds nobody back.
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    a.zipWith(b).observe { _ in }
    for value in 0..<2_000 { a.next(value) }
    #expect(a.isWritable)
  }

  @Test func pressureReachesTheOuterAndTheInnersOfMergeAndSwitch() {
    let clock = TestScheduler()
    let outer = EventProducer<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    outer.merge().deliverOn(clock, bufferLimit: 1, whenFull: .backpressure).observe { _ in }
    outer.next(first)
    outer.next(second)
    first.next(1)
    #expect(!first.isWritable && !second.isWritable && !outer.isWritable, "merge: the outer and every inner")
    clock.run()
    #expect(first.isWritable && second.isWritable && outer.isWritable)

    let switcher = EventProducer<EventProducer<Int>>()
    let old = EventProducer<Int>()
    let new = EventProducer<Int>()
    switcher.switchToLatest().deliverOn(clock, bufferLimit: 1, whenFull: .backpressure).observe { _ in }
    switcher.next(old)
    switcher.next(new)
    new.next(1)
    #expect(!new.isWritable && !switcher.isWritable, "switchToLatest: the outer and the current inner")
    #expect(old.isWritable, "an inner it left is not held back")
    clock.run()
    #expect(new.isWritable && switcher.isWritable)
  }

  @Test func pressureReachesBothSourcesOfWithLatestFromAndSampleAndTheUpstreamOfShare() {
    let clock = TestScheduler()
    let clicks = EventProducer<Int>()
    let text = EventProducer<Int>()
    clicks.withLatestFrom(text).deliverOn(clock, bufferLimit: 1, whenFull: .backpressure).observe { _ in }
    text.next(0)
    clicks.next(1)
    #expect(!clicks.isWritable && !text.isWritable)
    clock.run()
    #expect(clicks.isWritable && text.isWritable)

    let upstream = EventProducer<Int>()
    let shared = upstream.map { $0 * 2 }.share()
    shared.deliverOn(clock, bufferLimit: 1, whenFull: .backpressure).observe { _ in }
    upstream.next(1)
    #expect(!shared.isWritable && !upstream.isWritable, "share passes its pressure to its upstream")
    clock.run()
    #expect(shared.isWritable && upstream.isWritable)
  }

  /// Through stages: the downstream stage's pressure pauses the upstream stage's drain, which then
  /// fills and puts the source under pressure in turn.
  @Test func pressureCrossesStagesOneBufferAtATime() {
    let first = TestScheduler()
    let second = TestScheduler()
    let source = EventProducer<Int>()
    let received = Recorder<Int>()
    source
      .deliverOn(first, bufferLimit: 2, whenFull: .backpressure)
      .deliverOn(second, bufferLimit: 2, whenFull: .backpressure)
      .observe { received.add($0) }
    source.next(1)
    source.next(2)
    #expect(!source.isWritable, "the first stage is full")
    first.run()  // moves 1 and 2 into the second stage, which is now full
    #expect(source.isWritable, "the first stage drained")
    for value in 3...4 { source.next(value) }
    first.run()  // paused: the second stage is under pressure
    #expect(!source.isWritable, "the first stage cannot drain, so it fills")
    second.run()  // the second stage drains and wakes the first
    first.run()
    second.run()
    #expect(received.items == [1, 2, 3, 4])
    #expect(source.isWritable)
  }

  @Test func aPartitionPutsItsUpstreamUnderPressureWhileAnyLaneIs() {
    let source = EventProducer<Int>()
    // One key: every event goes to the same lane (which one depends on the process's hash seed).
    let partition = source.partition(lanes: 2, bufferLimit: 2, whenFull: .backpressure) { _ in "one key" }
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let received = Recorder<Int>()
    for lane in partition.lanes {
      lane.observe { value in
        if value == 0 {
          entered.signal()
          _ = gate.wait(timeout: .now() + outcomeWatchdogSeconds)
        }
        received.add(value)
      }
    }
    source.next(0)
    #expect(entered.wait(timeout: .now() + outcomeWatchdogSeconds) == .success)
    source.next(2)
    source.next(4)
    #expect(!source.isWritable, "lane 0 holds 2 waiting events")
    gate.signal()
    #expect(waitUntil { received.items.count == 3 && source.isWritable })
    partition.dispose()
  }

  // Rule 3 and 6: send(_:) waits while not writable; cancellation.
  @Test func sendWaitsWhileNotWritableAndReturnsOnceDelivered() async throws {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let received = Recorder<Int>()
    source.deliverOn(clock, bufferLimit: 1, whenFull: .backpressure).observe { received.add($0) }
    try await source.send(1)  // writable: sent at once, into the stage's buffer
    #expect(!source.isWritable)
    let sender = Task { try await source.send(2) }
    #expect(await waitUntilAsync { source.waitingSenders == 1 }, "the sender waits for the release")
    #expect(received.items.isEmpty)
    clock.run()  // delivers 1 and releases: the sender goes on
    try await sender.value
    clock.run()
    #expect(received.items == [1, 2])
  }

  @Test func cancellingAWaitingSendThrowsAndSendsNothing() async {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let received = Recorder<Int>()
    source.deliverOn(clock, bufferLimit: 1, whenFull: .backpressure).observe { received.add($0) }
    source.next(1)
    let sender = Task { try await source.send(2) }
    #expect(await waitUntilAsync { source.waitingSenders == 1 }, "the sender waits for the release")
    sender.cancel()
    let result = await sender.result
    #expect(throws: CancellationError.self) { try result.get() }
    clock.run()
    #expect(received.items == [1] && !source.isFinished)
  }

  // Rule 5: no sender waits on a stage that is gone.
  @Test func disposingTheStageReleasesItsPressure() async throws {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let observation = source.deliverOn(clock, bufferLimit: 1, whenFull: .backpressure, statistics: stats)
      .observe { _ in }
    source.next(1)
    let sender = Task { try await source.send(2) }
    #expect(await waitUntilAsync { source.waitingSenders == 1 }, "the sender waits for the release")
    observation.dispose()
    try await sender.value  // released: it goes on (and its event reaches nobody)
    #expect(source.isWritable && stats.bufferedCount == 0)
  }

  @Test func theEndOfTheUpstreamReleasesThePressureOnceDrained() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    source.deliverOn(clock, bufferLimit: 1, whenFull: .backpressure).observe { _ in }
    source.next(1)
    #expect(!source.isWritable)
    source.finish()
    #expect(source.isWritable, "a finished producer is writable")
    clock.run()
  }

  /// The upstream's end (here: its producer deallocated) releases the pressure at once, before
  /// the stage has drained: nothing more can come from it.
  @Test func theUpstreamsEndReleasesThePressureAtOnce() {
    let clock = TestScheduler()
    var clicks: EventProducer<Int>? = EventProducer<Int>()
    let text = EventProducer<Int>()
    let received = Recorder<String>()
    clicks!.withLatestFrom(text).deliverOn(clock, bufferLimit: 1, whenFull: .backpressure).observe { _ in
      received.add("event")
    } finished: {
      received.add("end")
    }
    text.next(0)
    clicks!.next(1)
    #expect(!text.isWritable)
    clicks = nil  // a deallocated producer ends its observers: withLatestFrom ends with it
    #expect(text.isWritable, "released at the end, with the event still waiting")
    clock.run()
    #expect(received.items == ["event", "end"])
  }

  @Test func sendOnAFinishedProducerReturnsWithoutDelivering() async throws {
    let source = EventProducer<Int>()
    let received = Recorder<Int>()
    source.observe { received.add($0) }
    source.finish()
    try await source.send(1)
    #expect(received.items.isEmpty && source.isWritable)
  }

  // Bounded batches.
  @Test func boundedBatchesKeepOrDropByPolicy() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let arrays = Recorder<[Int]>()
    source.batches(on: clock, maxCount: 2, bufferLimit: 3, whenFull: .backpressure, statistics: stats)
      .observe { arrays.add($0) }
    for value in 1...4 { source.next(value) }
    #expect(!source.isWritable && stats.bufferedCount == 4 && stats.pressureCount == 1)
    clock.run()
    #expect(arrays.items == [[1, 2], [3, 4]] && source.isWritable && stats.bufferedCount == 0)

    let newest = EventProducer<Int>()
    let kept = Recorder<[Int]>()
    let dropping = DeliveryStatistics()
    newest.batches(on: clock, bufferLimit: 2, whenFull: .dropNewest, statistics: dropping).observe { kept.add($0) }
    for value in 1...5 { newest.next(value) }
    #expect(newest.isWritable)
    clock.run()
    #expect(kept.items.flatMap { $0 } == [1, 2] && dropping.droppedCount == 3)
  }

  @Test func boundedBatchesBufferLimitBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().batches(on: TestScheduler(), bufferLimit: 0, whenFull: .backpressure)
    }
    #expect(
      exitTestStandardError(result).contains(
        "batches(on:maxCount:bufferLimit:whenFull:statistics:): bufferLimit must be at least 1, got 0"
      )
    )
  }

  @Test func deliverOnBackpressureBufferLimitBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().deliverOn(TestScheduler(), bufferLimit: 0, whenFull: .backpressure)
    }
    #expect(
      exitTestStandardError(result).contains(
        "deliverOn(_:bufferLimit:whenFull:statistics:): bufferLimit must be at least 1, got 0"
      )
    )
  }
}
