import BondTesting
import Testing

@Suite struct DebounceTests {
  // MARK: - The contract's example ("Time and queues")

  @Test func contractExample() {
    let clock = TestScheduler()
    let typing = EventProducer<Int>()
    let debounced = Recorder<Int>()
    typing.debounce(seconds: 1, scheduler: clock).observe { debounced.add($0) }
    typing.next(1)
    clock.advance(by: 0.5)
    typing.next(2)
    clock.advance(by: 0.6)
    #expect(debounced.items == [])
    clock.advance(by: 0.5)
    #expect(debounced.items == [2])
  }

  // MARK: - Timelines

  @Test func deliversAfterSilence() {
    #expect(
      timeline([(0, 1), (0.5, 2), (2, 3)], until: 5) { $0.debounce(seconds: 1, scheduler: $1) }
        == ["2@1.5", "3@3.0"]
    )
    #expect(timeline([(0, 1)], until: 0.99) { $0.debounce(seconds: 1, scheduler: $1) } == [])
    #expect(timeline([(0, 1)], until: 1) { $0.debounce(seconds: 1, scheduler: $1) } == ["1@1.0"])
  }

  @Test func aSteadyStreamFasterThanTheIntervalDeliversOnlyItsLast() {
    let typing = (0..<40).map { (Double($0) * 0.25, $0) }  // every 0.25 s until 9.75
    #expect(timeline(typing, until: 20) { $0.debounce(seconds: 0.5, scheduler: $1) } == ["39@10.25"])
  }

  @Test func anEventAtTheExactDeadlineComesAfterTheDelivery() {
    // The timer due at 1 was scheduled first: 1 is delivered, then 2 starts a new wait.
    #expect(timeline([(0, 1), (1, 2)], until: 5) { $0.debounce(seconds: 1, scheduler: $1) } == ["1@1.0", "2@2.0"])
  }

  @Test func replacedTimersAreCancelled() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let observation = source.debounce(seconds: 1, scheduler: clock).observe { _ in }
    for value in 1...100 { source.next(value) }
    #expect(clock.pendingActionCount == 1)
    observation.dispose()
    #expect(clock.pendingActionCount == 0)
  }

  // MARK: - Zero seconds

  @Test func zeroSecondsPassesEveryEventInOrderOnTheScheduler() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let delivered = Recorder<Int>()
    let observation = source.debounce(seconds: 0, scheduler: clock).observe { delivered.add($0) }
    for value in 1...5 { source.next(value) }
    #expect(delivered.items == [])
    clock.advance(by: 0)
    #expect(delivered.items == [1, 2, 3, 4, 5])
    observation.dispose()
    #expect(source.observerCount == 0)
  }

  // MARK: - Registration

  @Test func theReplayWaitsLikeAnyEventAndRegisteredFollowsIt() {
    let clock = TestScheduler()
    let value = Observable(1)
    let log = Recorder<String>()
    let observation = value.debounce(seconds: 1, scheduler: clock)
      .observe({ log.add("\($0)@\(clock.now)") }, registered: { log.add("registered") })
    clock.advance(by: 2)
    #expect(log.items == ["1@1.0", "registered"])
    observation.dispose()
  }

  @Test func observeNewSkipsTheReplayedValue() {
    let clock = TestScheduler()
    let value = Observable(1)
    let seen = Recorder<String>()
    let quiet = value.debounce(seconds: 1, scheduler: clock).observeNew { seen.add("quiet \($0)@\(clock.now)") }
    clock.advance(by: 2)  // the replayed 1 comes out at 1, before `registered`: observeNew drops it
    let busy = value.debounce(seconds: 1, scheduler: clock).observeNew { seen.add("busy \($0)@\(clock.now)") }
    clock.advance(by: 0.5)
    value.value = 2  // replaces the replayed 1 for `busy`; a new window or wait for `quiet`
    clock.advance(by: 2)
    #expect(seen.items == ["quiet 2@3.5", "busy 2@3.5"])  // never the replayed 1
    quiet.dispose()
    busy.dispose()
    #expect(value.observerCount == 0)
  }

  @Test func aLiveEventReplacingTheReplayComesAfterRegistered() {
    let clock = TestScheduler()
    let value = Observable(1)
    let log = Recorder<String>()
    let observation = value.debounce(seconds: 1, scheduler: clock)
      .observe({ log.add("\($0)@\(clock.now)") }, registered: { log.add("registered") })
    clock.advance(by: 0.5)
    value.value = 2
    clock.advance(by: 2)
    #expect(log.items == ["registered", "2@1.5"])
    observation.dispose()
  }

  @Test func replayLengthIsAtMostOne() {
    let clock = TestScheduler()
    #expect(EventProducer<Int>(replayLength: 3).debounce(seconds: 1, scheduler: clock).replayLength == 1)
    #expect(EventProducer<Int>(replayLength: 3).debounce(seconds: 0, scheduler: clock).replayLength == 3)
    #expect(EventProducer<Int>().debounce(seconds: 1, scheduler: clock).replayLength == 0)
  }

  // MARK: - Reentrancy and disposal

  @Test func anObserverCanSendIntoTheUpstream() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = source.debounce(seconds: 1, scheduler: clock).observe { value in
      log.add("\(value)@\(clock.now)")
      if value < 3 { source.next(value + 1) }
    }
    source.next(1)
    clock.advance(by: 10)
    #expect(log.items == ["1@1.0", "2@2.0", "3@3.0"])
    observation.dispose()
  }

  @Test func disposeWithAPendingEventDeliversNothingAndReleasesIt() {
    let clock = TestScheduler()
    let source = EventProducer<Tracked>()
    let delivered = Recorder<String>()
    weak var weakCaptured: Tracked?
    weak var weakPending: Tracked?
    let observation: any DisposableType
    do {
      let captured = Tracked("captured")
      weakCaptured = captured
      observation = source.debounce(seconds: 1, scheduler: clock).observe { event in
        delivered.add(captured.name + event.name)
      }
      let pending = Tracked("pending")
      weakPending = pending
      source.next(pending)
    }
    #expect(weakCaptured != nil && weakPending != nil && clock.pendingActionCount == 1)
    observation.dispose()
    #expect(weakCaptured == nil && weakPending == nil)
    #expect(clock.pendingActionCount == 0 && source.observerCount == 0 && observation.isDisposed)
    clock.run()
    #expect(delivered.items == [])
  }

  // MARK: - Bad input

  @Test func negativeSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().debounce(seconds: -1, scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("debounce(seconds:scheduler:): seconds must be 0 or more, got -1.0"))
  }

  @Test func nanSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().debounce(seconds: .nan, scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("debounce(seconds:scheduler:): seconds must be 0 or more, got nan"))
  }
}

// MARK: - The end (CONTRACT.md, "Finite streams" 5): the waiting event at once, then the end

extension DebounceTests {
  @Test func theEndDeliversTheWaitingEventAtOnceThenTheEnd() {
    // | time      | 0 | 0.5 | 0.8    |
    // | upstream  | 1 | 2   | end    |
    // | delivered |   |     | 2, end |   (not 2 at 1.5: no wait at the end)
    let delivered = finiteTimeline([(0, 1), (0.5, 2)], endAt: 0.8, until: 3) { source, clock in
      source.debounce(seconds: 1, scheduler: clock)
    }
    #expect(delivered == ["2@0.8", "end@0.8"])
  }

  @Test func theEndWithNothingWaitingComesAlone() {
    let delivered = finiteTimeline([(0, 1)], endAt: 2, until: 3) { source, clock in
      source.debounce(seconds: 1, scheduler: clock)
    }
    #expect(delivered == ["1@1.0", "end@2.0"])
  }

  @Test func zeroSecondsDeliversTheEndAfterEveryEvent() {
    let delivered = finiteTimeline([(0, 1), (0, 2)], endAt: 0.5, until: 1) { source, clock in
      source.debounce(seconds: 0, scheduler: clock)
    }
    #expect(delivered == ["1@0.0", "2@0.0", "end@0.5"])
  }

  @Test func disposeWithAnEventWaitingIsNotAnEnd() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let (log, observation) = logEvents(of: source.debounce(seconds: 1, scheduler: clock))
    source.next(1)
    observation.dispose()
    source.finish()
    clock.run()
    #expect(log.items == [] && clock.pendingActionCount == 0)
  }
}

extension DebounceTests {
  // MARK: - The Duration form

  @Test func durationForm() {
    #expect(
      timeline([(0, 1), (0.2, 2)], until: 5) { $0.debounce(for: .milliseconds(500), scheduler: $1) }
        == ["2@0.7"]
    )
  }

  @Test func negativeDurationStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().debounce(for: .milliseconds(-1), scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("debounce(for:scheduler:): interval must be 0 or more"))
  }
}
