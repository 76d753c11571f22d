import Bond
import BondTesting
import Testing

@Suite struct TimeoutTests {
  // MARK: - The contract's example

  @Test func contractExample() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let plain = Recorder<String>()
    let withLast = Recorder<String>()
    let durations = Recorder<String>()
    let both = Recorder<String>()
    source.timeout(seconds: 1, scheduler: clock).observe {
      plain.add("\($0)")
    } finished: {
      plain.add("end@\(clock.now)")
    }
    source.timeout(seconds: 1, scheduler: clock, sending: -1).observe {
      withLast.add("\($0)")
    } finished: {
      withLast.add("end")
    }
    source.timeout(for: .milliseconds(500), scheduler: clock).observe {
      durations.add("\($0)")
    } finished: {
      durations.add("end@\(clock.now)")
    }
    source.timeout(for: .seconds(2), scheduler: clock, sending: 0).observe {
      both.add("\($0)")
    } finished: {
      both.add("end")
    }
    clock.advance(by: 0.25)
    source.next(1)
    clock.advance(by: 3)
    #expect(plain.items == ["1", "end@1.25"])
    #expect(withLast.items == ["1", "-1", "end"])
    #expect(durations.items == ["1", "end@0.75"])
    #expect(both.items == ["1", "0", "end"])
    #expect(source.observerCount == 0, "timeout stops observing its upstream")
    #expect(clock.pendingActionCount == 0)
  }

  // MARK: - Timelines

  @Test func endsWhenNothingArrivesAfterObserve() {
    #expect(timeline([], until: 5) { $0.timeout(seconds: 1, scheduler: $1) } == ["end@1.0"])
    #expect(timeline([], until: 0.99) { $0.timeout(seconds: 1, scheduler: $1) } == [])
  }

  @Test func eachEventRearmsTheTimer() {
    #expect(
      timeline([(0.5, 1), (1.4, 2), (2.3, 3)], until: 10) { $0.timeout(seconds: 1, scheduler: $1) }
        == ["1@0.5", "2@1.4", "3@2.3", "end@3.3"]
    )
  }

  @Test func sendsLastThenEnds() {
    #expect(
      timeline([(0.5, 1)], until: 10) { $0.timeout(seconds: 1, scheduler: $1, sending: 99) }
        == ["1@0.5", "99@1.5", "end@1.5"]
    )
  }

  @Test func eventsAfterTheTimeoutReachNobody() {
    #expect(
      timeline([(0.5, 1), (2, 2), (2.1, 3)], until: 10) { $0.timeout(seconds: 1, scheduler: $1) }
        == ["1@0.5", "end@1.5"]
    )
  }

  // MARK: - The end

  @Test func upstreamEndBeforeTheTimeoutEndsAsUsual() {
    #expect(
      finiteTimeline([(0.5, 1)], endAt: 1, until: 10) { $0.timeout(seconds: 1, scheduler: $1, sending: 99) }
        == ["1@0.5", "end@1.0"]
    )
  }

  @Test func disposeCancelsTheTimer() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let (log, observation) = logEvents(of: source.timeout(seconds: 1, scheduler: clock, sending: 9))
    source.next(1)
    clock.advance(by: 0.5)
    observation.dispose()
    clock.advance(by: 5)
    #expect(log.items == ["1"])
    #expect(source.observerCount == 0 && clock.pendingActionCount == 0)
  }

  @Test func replayPassesThroughThenRegistered() {
    let clock = TestScheduler()
    let value = Observable(7)
    let log = Recorder<String>()
    value.timeout(seconds: 1, scheduler: clock).observe {
      log.add("\($0)@\(clock.now)")
    } registered: {
      log.add("registered")
    }
    clock.advance(by: 0.5)
    value.value = 8
    clock.advance(by: 2)
    #expect(log.items == ["7@0.0", "registered", "8@0.5"])
    #expect(clock.pendingActionCount == 0)
  }

  @Test func oneTimerPendingAtATime() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let observation = source.timeout(seconds: 1, scheduler: clock).observe { _ in }
    for value in 0..<100 { source.next(value) }
    clock.advance(by: 0)
    #expect(clock.pendingActionCount == 1)
    observation.dispose()
  }

  // MARK: - Bad input

  @Test func negativeSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().timeout(seconds: -1, scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("timeout(seconds:scheduler:): seconds must be 0 or more, got -1.0"))
  }

  @Test func nanSecondsWithLastStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().timeout(seconds: .nan, scheduler: TestScheduler(), sending: 0)
    }
    #expect(exitTestStandardError(result).contains("timeout(seconds:scheduler:sending:)"))
  }

  @Test func negativeDurationStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().timeout(for: .seconds(-1), scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("timeout(for:scheduler:)"))
  }

  @Test func negativeDurationWithLastStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().timeout(for: .seconds(-1), scheduler: TestScheduler(), sending: 0)
    }
    #expect(exitTestStandardError(result).contains("timeout(for:scheduler:sending:)"))
  }
}
