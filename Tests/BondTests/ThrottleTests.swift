import BondTesting
import Testing

@Suite struct ThrottleTests {
  // MARK: - The contract's example ("Time and queues")

  @Test func contractExample() {
    let clock = TestScheduler()
    let taps = EventProducer<Int>()
    let throttled = Recorder<Int>()
    taps.throttle(seconds: 1, scheduler: clock).observe { throttled.add($0) }
    taps.next(1)
    clock.advance(by: 0.5)
    taps.next(2)
    clock.advance(by: 0.6)
    #expect(throttled.items == [2])
    clock.advance(by: 0.5)
    taps.next(3)
    clock.advance(by: 1)
    #expect(throttled.items == [2, 3] && clock.now >= 2.6)
  }

  // MARK: - Timelines, mode .latest (Bond v4, the default)

  @Test func latestOfEachWindowAtItsEnd() {
    // The brief's table: window [0, 1) delivers 2 at 1; the event at 1.1 opens [1.1, 2.1).
    #expect(
      timeline([(0, 1), (0.5, 2), (1.1, 3)], until: 5) { $0.throttle(seconds: 1, scheduler: $1) }
        == ["2@1.0", "3@2.1"]
    )
    #expect(
      timeline([(0, 1), (0.5, 2), (1.5, 3)], until: 5) { $0.throttle(seconds: 1, scheduler: $1, mode: .latest) }
        == ["2@1.0", "3@2.5"]
    )
  }

  @Test func aLoneEventWaitsForTheEndOfItsWindow() {
    #expect(timeline([(0, 1)], until: 0.99) { $0.throttle(seconds: 1, scheduler: $1) } == [])
    #expect(timeline([(0, 1)], until: 1) { $0.throttle(seconds: 1, scheduler: $1) } == ["1@1.0"])
  }

  @Test func aBurstYieldsOneEventPerWindow() {
    let burst = (0..<20).map { (Double($0) * 0.25, $0) }  // 0, 0.25, ..., 4.75
    #expect(
      timeline(burst, until: 10) { $0.throttle(seconds: 1, scheduler: $1) }
        == ["3@1.0", "7@2.0", "11@3.0", "15@4.0", "19@5.0"]
    )
  }

  @Test func anEventAtTheExactEndOfAWindowOpensTheNext() {
    // The window's end (scheduled first) runs first; the event at 1 then opens [1, 2).
    #expect(timeline([(0, 1), (1, 2)], until: 5) { $0.throttle(seconds: 1, scheduler: $1) } == ["1@1.0", "2@2.0"])
  }

  // MARK: - Timelines, modes .leading and .leadingAndLatest

  @Test func leadingDeliversTheFirstAndDropsTheRest() {
    #expect(
      timeline([(0, 1), (0.5, 2), (1.5, 3)], until: 5) { $0.throttle(seconds: 1, scheduler: $1, mode: .leading) }
        == ["1@0.0", "3@1.5"]
    )
    #expect(
      timeline([(0, 1), (0.5, 2), (0.99, 3), (1, 4)], until: 5) {
        $0.throttle(seconds: 1, scheduler: $1, mode: .leading)
      } == ["1@0.0", "4@1.0"]
    )
  }

  @Test func leadingAndLatestDeliversTheFirstAtOnceAndTheLatestAtTheEnd() {
    // 1 at once, opens [0, 1); 2 at its end opens [1, 2); 3 at its end opens [2, 3), which ends
    // empty; 4 opens a new window and goes at once.
    #expect(
      timeline([(0, 1), (0.5, 2), (1.5, 3), (3.5, 4)], until: 6) {
        $0.throttle(seconds: 1, scheduler: $1, mode: .leadingAndLatest)
      } == ["1@0.0", "2@1.0", "3@2.0", "4@3.5"]
    )
    // A lone event goes at once and nothing follows.
    #expect(
      timeline([(0, 1)], until: 5) { $0.throttle(seconds: 1, scheduler: $1, mode: .leadingAndLatest) } == ["1@0.0"]
    )
  }

  // MARK: - Zero seconds

  @Test func zeroSecondsPassesEveryEventInOrderOnTheScheduler() {
    for mode in [ThrottleMode.latest, .leading, .leadingAndLatest] {
      let clock = TestScheduler()
      let source = EventProducer<Int>()
      let delivered = Recorder<Int>()
      let observation = source.throttle(seconds: 0, scheduler: clock, mode: mode).observe { delivered.add($0) }
      for value in 1...5 { source.next(value) }
      #expect(delivered.items == [])  // on the scheduler, not in `next`
      clock.advance(by: 0)
      #expect(delivered.items == [1, 2, 3, 4, 5])
      observation.dispose()
      #expect(source.observerCount == 0)
    }
  }

  // MARK: - Registration

  @Test func theReplayOpensAWindowAndRegisteredFollowsIt() {
    let clock = TestScheduler()
    let value = Observable(1)
    let log = Recorder<String>()
    let observation = value.throttle(seconds: 1, scheduler: clock)
      .observe({ log.add("\($0)@\(clock.now)") }, registered: { log.add("registered") })
    clock.advance(by: 2)
    #expect(log.items == ["1@1.0", "registered"])
    observation.dispose()
  }

  @Test func observeNewSkipsTheReplayedValue() {
    let clock = TestScheduler()
    let value = Observable(1)
    let seen = Recorder<String>()
    let quiet = value.throttle(seconds: 1, scheduler: clock).observeNew { seen.add("quiet \($0)@\(clock.now)") }
    clock.advance(by: 2)  // the replayed 1 comes out at 1, before `registered`: observeNew drops it
    let busy = value.throttle(seconds: 1, scheduler: clock).observeNew { seen.add("busy \($0)@\(clock.now)") }
    clock.advance(by: 0.5)
    value.value = 2  // replaces the replayed 1 for `busy`; a new window or wait for `quiet`
    clock.advance(by: 2)
    #expect(seen.items == ["busy 2@3.0", "quiet 2@3.5"])  // never the replayed 1
    quiet.dispose()
    busy.dispose()
    #expect(value.observerCount == 0)
  }

  @Test func aLiveEventReplacingTheReplayComesAfterRegistered() {
    let clock = TestScheduler()
    let value = Observable(1)
    let log = Recorder<String>()
    let observation = value.throttle(seconds: 1, scheduler: clock)
      .observe({ log.add("\($0)@\(clock.now)") }, registered: { log.add("registered") })
    clock.advance(by: 0.5)
    value.value = 2
    clock.advance(by: 2)
    #expect(log.items == ["registered", "2@1.0"])
    observation.dispose()
  }

  @Test func leadingReplayThenRegistered() {
    let clock = TestScheduler()
    let value = Observable(1)
    let log = Recorder<String>()
    let observation = value.throttle(seconds: 1, scheduler: clock, mode: .leading)
      .observe({ log.add("\($0)@\(clock.now)") }, registered: { log.add("registered") })
    value.value = 2  // dropped: inside the window the replay opened
    clock.advance(by: 2)
    #expect(log.items == ["1@0.0", "registered"])
    observation.dispose()
  }

  @Test func registeredWithNoReplayComesAtOnce() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = source.throttle(seconds: 1, scheduler: clock)
      .observe({ log.add("\($0)") }, registered: { log.add("registered") })
    source.next(1)
    clock.advance(by: 1)
    #expect(log.items == ["registered", "1"])
    observation.dispose()
  }

  @Test func replayLengthIsThinnedByTheWindows() {
    let source = EventProducer<Int>(replayLength: 5)
    let clock = TestScheduler()
    #expect(source.throttle(seconds: 1, scheduler: clock).replayLength == 1)
    #expect(source.throttle(seconds: 1, scheduler: clock, mode: .leading).replayLength == 1)
    #expect(source.throttle(seconds: 1, scheduler: clock, mode: .leadingAndLatest).replayLength == 2)
    #expect(source.throttle(seconds: 0, scheduler: clock).replayLength == 5)
    #expect(EventProducer<Int>().throttle(seconds: 1, scheduler: clock).replayLength == 0)
  }

  // MARK: - Reentrancy and disposal

  @Test func anObserverCanSendIntoTheUpstream() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = source.throttle(seconds: 1, scheduler: clock).observe { value in
      log.add("\(value)@\(clock.now)")
      if value < 3 { source.next(value + 1) }  // opens the next window
    }
    source.next(1)
    clock.advance(by: 10)
    #expect(log.items == ["1@1.0", "2@2.0", "3@3.0"])
    observation.dispose()
  }

  @Test func disposeWithAPendingEventDeliversNothingAndReleasesIt() {
    for mode in [ThrottleMode.latest, .leadingAndLatest] {
      let clock = TestScheduler()
      let source = EventProducer<Tracked>()
      let delivered = Recorder<String>()
      weak var weakCaptured: Tracked?
      weak var weakPending: Tracked?
      let observation: any DisposableType
      do {
        let captured = Tracked("captured")
        weakCaptured = captured
        observation = source.throttle(seconds: 1, scheduler: clock, mode: mode)
          .observe { event in delivered.add(captured.name + event.name) }
        source.next(Tracked("first"))
        let pending = Tracked("pending")
        weakPending = pending
        source.next(pending)
      }
      clock.advance(by: 0)  // .leadingAndLatest: delivers "first" at once
      #expect(weakCaptured != nil && weakPending != nil && clock.pendingActionCount == 1)
      observation.dispose()
      #expect(weakCaptured == nil && weakPending == nil)
      #expect(clock.pendingActionCount == 0 && source.observerCount == 0 && observation.isDisposed)
      clock.run()
      #expect(delivered.items == (mode == .latest ? [] : ["capturedfirst"]))
    }
  }

  @Test func disposeBeforeALeadingDeliveryRunsDeliversNothing() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let delivered = Recorder<Int>()
    let observation = source.throttle(seconds: 1, scheduler: clock, mode: .leading).observe { delivered.add($0) }
    source.next(1)
    observation.dispose()
    clock.run()
    #expect(delivered.items == [] && clock.pendingActionCount == 0)
  }

  // MARK: - Bad input

  @Test func negativeSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().throttle(seconds: -1, scheduler: TestScheduler())
    }
    #expect(
      exitTestStandardError(result).contains("throttle(seconds:scheduler:mode:): seconds must be 0 or more, got -1.0")
    )
  }

  @Test func nanSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().throttle(seconds: .nan, scheduler: TestScheduler())
    }
    #expect(
      exitTestStandardError(result).contains("throttle(seconds:scheduler:mode:): seconds must be 0 or more, got nan")
    )
  }

  @Test func negativeSecondsWithModeStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().throttle(seconds: -0.5, scheduler: TestScheduler(), mode: .leading)
    }
    #expect(
      exitTestStandardError(result).contains("throttle(seconds:scheduler:mode:): seconds must be 0 or more, got -0.5")
    )
  }

  @Test func nanSecondsWithModeStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().throttle(seconds: .nan, scheduler: TestScheduler(), mode: .leadingAndLatest)
    }
    #expect(
      exitTestStandardError(result).contains("throttle(seconds:scheduler:mode:): seconds must be 0 or more, got nan")
    )
  }
}

// MARK: - The end (CONTRACT.md, "Finite streams" 5): the pending event at once, then the end

extension ThrottleTests {
  @Test func theEndDeliversThePendingEventAtOnceThenTheEnd() {
    // | time      | 0 | 0.5 | 0.6    |
    // | upstream  | 1 | 2   | end    |
    // | delivered |   |     | 2, end |   (not 2 at 1: nothing waits for the window at the end)
    let delivered = finiteTimeline([(0, 1), (0.5, 2)], endAt: 0.6, until: 3) { source, clock in
      source.throttle(seconds: 1, scheduler: clock)
    }
    #expect(delivered == ["2@0.6", "end@0.6"])
  }

  @Test func theEndWithNothingPendingComesAlone() {
    let delivered = finiteTimeline([(0, 1), (0.5, 2)], endAt: 1.5, until: 3) { source, clock in
      source.throttle(seconds: 1, scheduler: clock)
    }
    #expect(delivered == ["2@1.0", "end@1.5"])
  }

  @Test func theEndInEachMode() {
    // Events 1, 2 at 0, 0.5; the end at 0.7; `seconds` 1.
    let expected: [(ThrottleMode, [String])] = [
      (.latest, ["2@0.7", "end@0.7"]),
      (.leading, ["1@0.0", "end@0.7"]),
      (.leadingAndLatest, ["1@0.0", "2@0.7", "end@0.7"]),
    ]
    for (mode, events) in expected {
      let delivered = finiteTimeline([(0, 1), (0.5, 2)], endAt: 0.7, until: 3) { source, clock in
        source.throttle(seconds: 1, scheduler: clock, mode: mode)
      }
      #expect(delivered == events, "\(mode)")
    }
  }

  @Test func zeroSecondsDeliversTheEndAfterEveryEvent() {
    let delivered = finiteTimeline([(0, 1), (0, 2)], endAt: 0, until: 1) { source, clock in
      source.throttle(seconds: 0, scheduler: clock)
    }
    #expect(delivered == ["1@0.0", "2@0.0", "end@0.0"])
  }

  @Test func aReplayedEventPendingAtTheEndIsFlushedWithRegistered() {
    let clock = TestScheduler()
    let source = EventProducer<Int>(replayLength: 1)
    source.next(1)
    let log = Recorder<String>()
    let observation = source.throttle(seconds: 1, scheduler: clock)
      .observe(
        with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
      )
    source.finish()
    clock.advance(by: 0)
    #expect(log.items == ["1", "registered", "end"] && observation.isDisposed)
    #expect(clock.pendingActionCount == 0)
  }
}

extension ThrottleTests {
  // MARK: - The Duration forms

  @Test func durationForms() {
    #expect(
      timeline([(0, 1), (0.2, 2)], until: 5) { $0.throttle(for: .milliseconds(500), scheduler: $1) }
        == ["2@0.5"]
    )
    #expect(
      timeline([(0, 1), (0.2, 2), (0.6, 3)], until: 5) {
        $0.throttle(for: .milliseconds(500), scheduler: $1, mode: .leading)
      } == ["1@0.0", "3@0.6"]
    )
  }

  @Test func negativeDurationStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().throttle(for: .seconds(-1), scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("throttle(for:scheduler:mode:): interval must be 0 or more"))
  }
}
