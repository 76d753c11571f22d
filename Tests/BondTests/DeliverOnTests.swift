import BondTesting
import Dispatch
import Testing

/// A scheduler that counts its `schedule` calls and forwards them to a `TestScheduler`.
private final class CountingScheduler: Scheduler {
  let clock = TestScheduler()
  let calls = Recorder<String>()
  func schedule(_ action: @escaping @Sendable () -> Void) {
    calls.add("now")
    clock.schedule(action)
  }
  func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any DisposableType {
    calls.add("after")
    return clock.schedule(after: seconds, action)
  }
}

@Suite struct DeliverOnTests {
  // MARK: - The contract's example ("Time and queues")

  @Test func contractDispatchQueueKeepsOrderAndLosesNothing() {
    let queue = DispatchQueue(label: "contract.deliverOn")
    let source = EventProducer<Int>()
    let delivered = Recorder<Int>()
    let done = DispatchSemaphore(value: 0)
    let observation = source.deliverOn(queue).observe { value in
      delivered.add(value)
      if value == 999 { done.signal() }
    }
    for value in 0..<1000 { source.next(value) }
    #expect(done.wait(timeout: .now() + outcomeWatchdogSeconds) == .success)
    #expect(delivered.items == Array(0..<1000))
    observation.dispose()
    #expect(source.observerCount == 0)
  }

  @Test func contractVirtualSchedulerRunsOnlyWhenTimeMoves() {
    let source = EventProducer<Int>()
    let virtual = TestScheduler()
    let later = Recorder<Int>()
    source.deliverOn(virtual).observe { later.add($0) }
    source.next(1)
    #expect(later.items == [])
    virtual.run()
    #expect(later.items == [1])
  }

  // MARK: - Delivery

  @Test func aBurstCostsOneScheduleCall() {
    let scheduler = CountingScheduler()
    let source = EventProducer<Int>()
    let delivered = Recorder<Int>()
    let observation = source.deliverOn(scheduler).observe { delivered.add($0) }
    for value in 0..<10_000 { source.next(value) }
    #expect(scheduler.calls.items == ["now"])
    scheduler.clock.advance(by: 0)
    #expect(delivered.items == Array(0..<10_000))
    source.next(10_000)  // the drain ended: a new burst schedules a new one
    scheduler.clock.advance(by: 0)
    #expect(scheduler.calls.items == ["now", "now"] && delivered.items.count == 10_001)
    observation.dispose()
  }

  @Test func eventsSentDuringADrainJoinIt() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let delivered = Recorder<Int>()
    let observation = source.deliverOn(clock).observe { value in
      delivered.add(value)
      if value < 5 { source.next(value + 10) }  // reentrant: queued behind the current batch
    }
    source.next(1)
    source.next(2)
    clock.advance(by: 0)
    #expect(delivered.items == [1, 2, 11, 12])
    observation.dispose()
  }

  @Test func aLongDrainLetsOtherWorkRun() {
    // A drain delivers its share, then schedules its successor, so a serial queue is not monopolized.
    let scheduler = CountingScheduler()
    let source = EventProducer<Int>()
    let delivered = Recorder<Int>()
    let observation = source.deliverOn(scheduler).observe { value in
      delivered.add(value)
      if value < 3000 { source.next(value + 1) }  // one new event per delivery, 3000 in all
    }
    source.next(0)
    scheduler.clock.advance(by: 0)
    #expect(delivered.items == Array(0...3000))
    #expect(scheduler.calls.items.count == 3)  // 1 + one per 1024 events delivered
    observation.dispose()
  }

  @Test func replayIsDeliveredOnTheSchedulerThenRegistered() {
    let clock = TestScheduler()
    let source = EventProducer<Int>(replayLength: 2)
    source.next(1)
    source.next(2)
    source.next(3)
    let log = Recorder<String>()
    let observation = source.deliverOn(clock).observe({ log.add("\($0)") }, registered: { log.add("registered") })
    #expect(log.items == [])
    source.next(4)
    clock.advance(by: 0)
    #expect(log.items == ["2", "3", "registered", "4"])
    #expect(source.deliverOn(clock).replayLength == 2)
    observation.dispose()
  }

  @Test func registeredWithNoReplayComesFirst() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = source.deliverOn(clock).observe({ log.add("\($0)") }, registered: { log.add("registered") })
    source.next(1)
    clock.advance(by: 0)
    #expect(log.items == ["registered", "1"])
    observation.dispose()
  }

  @Test func observableThroughDeliverOn() {
    let clock = TestScheduler()
    let name = Observable("Jim")
    let seen = Recorder<String>()
    let observation = name.deliverOn(clock).observe { seen.add($0) }
    name.value = "Spock"
    #expect(seen.items == [])
    clock.run()
    #expect(seen.items == ["Jim", "Spock"])
    observation.dispose()
    #expect(name.observerCount == 0)
  }

  @Test func observeNewSkipsTheReplayDeliveredOnTheScheduler() {
    let clock = TestScheduler()
    let name = Observable("Jim")
    let seen = Recorder<String>()
    let observation = name.deliverOn(clock).observeNew { seen.add($0) }
    name.value = "Spock"
    clock.run()
    #expect(seen.items == ["Spock"])
    observation.dispose()
  }

  // MARK: - Disposal

  @Test func disposeBeforeTheDrainDeliversNothingAndReleasesEverything() {
    let clock = TestScheduler()
    let source = EventProducer<Tracked>()
    let delivered = Recorder<String>()
    weak var weakCaptured: Tracked?
    weak var weakEvent: Tracked?
    let observation: any DisposableType
    do {
      let captured = Tracked("captured")
      weakCaptured = captured
      observation = source.deliverOn(clock).observe { event in delivered.add(captured.name + event.name) }
      let event = Tracked("event")
      weakEvent = event
      source.next(event)
    }
    #expect(weakCaptured != nil && weakEvent != nil && source.observerCount == 1)
    observation.dispose()
    #expect(weakCaptured == nil && weakEvent == nil && source.observerCount == 0)
    #expect(observation.isDisposed)
    observation.dispose()  // twice is harmless
    clock.run()
    #expect(delivered.items == [])
  }

  @Test func disposeFromInsideTheObserverStopsTheBatch() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let delivered = Recorder<Int>()
    let holder = Recorder<any DisposableType>()
    holder.add(
      source.deliverOn(clock).observe { value in
        delivered.add(value)
        if value == 2 { holder.items.first?.dispose() }
      }
    )
    for value in 1...5 { source.next(value) }
    clock.run()
    #expect(delivered.items == [1, 2])
    #expect(source.observerCount == 0)
  }

  @Test func eachObservationHasItsOwnBuffer() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    let chain = source.deliverOn(clock)
    let a = chain.observe { first.add($0) }
    let b = chain.observe { second.add($0) }
    source.next(1)
    a.dispose()
    source.next(2)
    clock.run()
    #expect(first.items == [] && second.items == [1, 2])
    b.dispose()
    #expect(source.observerCount == 0)
  }

  // MARK: - Bounded buffer

  @Test func boundedDropOldestKeepsTheFreshest() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let statistics = DeliveryStatistics()
    let delivered = Recorder<Int>()
    let observation = source.deliverOn(clock, bufferLimit: 3, whenFull: .dropOldest, statistics: statistics)
      .observe { delivered.add($0) }
    for value in 1...10 { source.next(value) }
    clock.run()
    #expect(delivered.items == [8, 9, 10])
    #expect(statistics.droppedCount == 7)
    observation.dispose()
  }

  @Test func boundedDropNewestKeepsTheEarliest() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let statistics = DeliveryStatistics()
    let delivered = Recorder<Int>()
    let observation = source.deliverOn(clock, bufferLimit: 3, whenFull: .dropNewest, statistics: statistics)
      .observe { delivered.add($0) }
    for value in 1...10 { source.next(value) }
    clock.run()
    #expect(delivered.items == [1, 2, 3])
    #expect(statistics.droppedCount == 7)
    observation.dispose()
  }

  @Test func boundedCountsOnlyEventsStillWaiting() {
    // A slow consumer: each delivery lets the producer send two more. The buffer never holds more
    // than its limit; what is handed to the observer no longer counts.
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let statistics = DeliveryStatistics()
    let delivered = Recorder<Int>()
    var next = 100
    let observation = source.deliverOn(clock, bufferLimit: 2, whenFull: .dropOldest, statistics: statistics)
      .observe { value in
        delivered.add(value)
        if next < 106 {
          source.next(next)
          source.next(next + 1)
          next += 2
        }
      }
    source.next(1)
    clock.run()
    // 1 → sends 100, 101 (buffer [100, 101]); 100 → sends 102, 103: 101 dropped ([102, 103]);
    // 102 → sends 104, 105: 103 dropped ([104, 105]); then 104 and 105.
    #expect(delivered.items == [1, 100, 102, 104, 105])
    #expect(statistics.droppedCount == 2)
    observation.dispose()
  }

  @Test func oneStatisticsObjectCountsEveryObservation() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let statistics = DeliveryStatistics()
    let chain = source.deliverOn(clock, bufferLimit: 1, whenFull: .dropNewest, statistics: statistics)
    let a = chain.observe { _ in }
    let b = chain.observe { _ in }
    for value in 1...3 { source.next(value) }
    #expect(statistics.droppedCount == 4)
    a.dispose()
    b.dispose()
  }

  @Test func boundedRegisteredFollowsTheReplayThatSurvives() {
    let clock = TestScheduler()
    let source = EventProducer<Int>(replayLength: 3)
    source.next(1)
    source.next(2)
    source.next(3)
    let log = Recorder<String>()
    let observation = source.deliverOn(clock, bufferLimit: 2, whenFull: .dropOldest)
      .observe({ log.add("\($0)") }, registered: { log.add("registered") })
    source.next(4)  // drops 2 (a replayed event): `registered` still follows 3
    clock.run()
    #expect(log.items == ["3", "registered", "4"])
    observation.dispose()
  }

  @Test func boundedDisposeReleasesWaitingEvents() {
    let clock = TestScheduler()
    let source = EventProducer<Tracked>()
    weak var weakEvent: Tracked?
    let observation = source.deliverOn(clock, bufferLimit: 4, whenFull: .dropNewest).observe { _ in }
    do {
      let event = Tracked()
      weakEvent = event
      source.next(event)
    }
    #expect(weakEvent != nil)
    observation.dispose()
    #expect(weakEvent == nil && source.observerCount == 0)
  }

  @Test func zeroBufferLimitStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().deliverOn(TestScheduler(), bufferLimit: 0, whenFull: .dropOldest)
    }
    #expect(
      exitTestStandardError(result).contains(
        "deliverOn(_:bufferLimit:whenFull:statistics:): bufferLimit must be at least 1, got 0"
      )
    )
  }
}

// MARK: - The end (CONTRACT.md, "Finite streams" 5)

extension DeliverOnTests {
  @Test func theEndComesOnTheSchedulerAfterEveryBufferedEvent() {
    // | time      | 0       | 1   | 2       |
    // | upstream  | 1, 2    |     | 3, end  |
    // | delivered | 1, 2    |     | 3, end  |
    let delivered = finiteTimeline([(0, 1), (0, 2), (2, 3)], endAt: 2, until: 3) { source, clock in
      source.deliverOn(clock)
    }
    #expect(delivered == ["1@0.0", "2@0.0", "3@2.0", "end@2.0"])
  }

  @Test func theEndWaitsForTheSchedulerLikeAnEvent() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let (log, observation) = logEvents(of: source.deliverOn(clock))
    source.next(1)
    source.finish()
    #expect(log.items == [] && !observation.isDisposed, "nothing before the scheduler runs")
    clock.advance(by: 0)
    #expect(log.items == ["1", "end"] && observation.isDisposed)
    #expect(clock.pendingActionCount == 0)
  }

  @Test func aBoundedDeliverOnNeverDropsTheEnd() {
    for (policy, expected) in [
      (DeliveryOverflowPolicy.dropOldest, ["2", "3", "end"]), (.dropNewest, ["1", "2", "end"]),
    ] {
      let clock = TestScheduler()
      let source = EventProducer<Int>()
      let drops = DeliveryStatistics()
      let (log, _) = logEvents(of: source.deliverOn(clock, bufferLimit: 2, whenFull: policy, statistics: drops))
      source.next(1)
      source.next(2)
      source.next(3)
      source.finish()  // the buffer is full: the end takes no place in it
      clock.run()
      #expect(log.items == expected, "\(policy)")
      #expect(drops.droppedCount == 1, "only an event was dropped, never the end")
    }
  }

  @Test func aLateObserverOfAFinishedProducerGetsTheReplayThenTheEndOnTheScheduler() {
    let clock = TestScheduler()
    let source = EventProducer<Int>(replayLength: 1)
    source.next(1)
    source.finish()
    let (log, observation) = logEvents(of: source.deliverOn(clock))
    #expect(log.items == [])
    clock.advance(by: 0)
    #expect(log.items == ["1", "end"] && observation.isDisposed)
  }

  @Test func withoutAFinishedClosureTheEndStillReleasesTheObserver() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    weak var weakToken: Tracked?
    let observation: any DisposableType
    do {
      let token = Tracked()
      weakToken = token
      observation = source.deliverOn(clock).observe { _ in _ = token }
    }
    source.finish()
    clock.run()
    #expect(observation.isDisposed && weakToken == nil)
  }

  @Test func disposeBeforeTheEndIsDeliveredMeansNoEnd() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let (log, observation) = logEvents(of: source.deliverOn(clock))
    source.next(1)
    source.finish()
    observation.dispose()
    clock.run()
    #expect(log.items == [], "dispose() is not an end")
  }

  @Test func aNilRegisteredSchedulesNoDrainThroughAChain() {
    let scheduler = CountingScheduler()
    let source = EventProducer<Int>()
    let observation = source.deliverOn(scheduler).map { $0 + 1 }.observe { _ in }
    #expect(scheduler.calls.items == [], "nobody asked for `registered`: nothing to schedule")
    observation.dispose()
  }
}
