import BondTesting
import Testing

/// The 1.0 spellings of the timed operators and creation forms (`scheduler:`, a `Duration` for
/// every time parameter), `Scheduler.schedule(after: Duration)` and `TestScheduler.advance(by:
/// Duration)`, on virtual time; and the `queue:` spellings, which only forward.
@Suite struct SchedulerLabelTests {
  @Test func throttleTakesADurationAndTheLatestModeByDefault() {
    let inputs: [(Double, Int)] = [(0, 1), (0.5, 2), (1.5, 3)]
    #expect(
      timeline(inputs, until: 5) { $0.throttle(for: .seconds(1), scheduler: $1) } == ["2@1.0", "3@2.5"]
    )
    #expect(
      timeline(inputs, until: 5) { $0.throttle(for: .seconds(1), scheduler: $1, mode: .leading) }
        == ["1@0.0", "3@1.5"]
    )
    #expect(
      timeline(inputs, until: 5) { $0.throttle(seconds: 1, scheduler: $1, mode: .leadingAndLatest) }
        == ["1@0.0", "2@1.0", "3@2.0"]
    )
  }

  @Test func debounceDelayAndTimeoutTakeADuration() {
    let inputs: [(Double, Int)] = [(0, 1), (0.25, 2), (2, 3)]
    #expect(
      timeline(inputs, until: 5) { $0.debounce(for: .milliseconds(500), scheduler: $1) } == ["2@0.75", "3@2.5"]
    )
    #expect(
      timeline(inputs, until: 5) { $0.delay(for: .milliseconds(250), scheduler: $1) }
        == ["1@0.25", "2@0.5", "3@2.25"]
    )
    #expect(
      timeline(inputs, until: 5) { $0.timeout(for: .seconds(1), scheduler: $1, sending: -1) }
        == ["1@0.0", "2@0.25", "-1@1.25", "end@1.25"]
    )
    #expect(
      timeline(inputs, until: 5) { $0.timeout(for: .seconds(1), scheduler: $1) } == ["1@0.0", "2@0.25", "end@1.25"]
    )
  }

  @Test func collectTakesADurationForItsPeriod() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    source.collect(count: 3, orEvery: .seconds(1), scheduler: clock).observe { arrays.add($0) }
    source.next(1)
    clock.advance(by: .milliseconds(500))
    source.next(2)
    clock.advance(by: .milliseconds(500))
    #expect(arrays.items == [[1, 2]])
    source.next(3)
    source.next(4)
    source.next(5)
    #expect(arrays.items == [[1, 2]])
    clock.advance(by: .zero as Duration)
    #expect(arrays.items == [[1, 2], [3, 4, 5]])
  }

  @Test func intervalEveryAndTimerAfterADuration() {
    let clock = TestScheduler()
    let ticks = Recorder<String>()
    let ticking = EventProducer<Int>.interval(every: .milliseconds(500), scheduler: clock).observe {
      ticks.add("\($0)@\(clock.now)")
    }
    let fired = Recorder<String>()
    EventProducer<Int>.timer(after: .seconds(1), scheduler: clock).observe {
      fired.add("\($0)@\(clock.now)")
    } finished: {
      fired.add("end@\(clock.now)")
    }
    clock.advance(by: .milliseconds(1_600))
    #expect(ticks.items == ["0@0.5", "1@1.0", "2@1.5"])
    #expect(fired.items == ["0@1.0", "end@1.0"])
    ticking.dispose()
    #expect(clock.pendingActionCount == 0)
  }

  @Test func scheduleAfterADurationAndAdvanceByADuration() {
    let clock = TestScheduler()
    let ran = Recorder<Double>()
    _ = clock.schedule(after: .milliseconds(1_500)) { ran.add(clock.now) }
    let cancelled = clock.schedule(after: .seconds(1)) { ran.add(-1) }
    cancelled.dispose()
    clock.advance(by: .seconds(1))
    #expect(ran.items.isEmpty)
    clock.advance(by: .milliseconds(500))
    #expect(ran.items == [1.5])
    #expect(clock.now == 1.5)
    // Through the protocol: the extension converts the Duration for any Scheduler.
    let scheduler: any Scheduler = clock
    scheduler.schedule(after: .milliseconds(250)) { ran.add(clock.now) }
    clock.advance(by: .seconds(1))
    #expect(ran.items == [1.5, 1.75])
  }

  @Test func aDurationIsConvertedExactlyWhereADoubleHoldsIt() {
    let clock = TestScheduler()
    clock.advance(by: .milliseconds(100))
    #expect(clock.now == 0.1)
    clock.advance(by: .nanoseconds(1))
    #expect(clock.now == 0.1 + 1e-9)
  }

  @Test func theBoundedMergeStrategyIsSpelledMergeMaxConcurrent() {
    let outer = EventProducer<EventProducer<Int>>()
    let inners = (0..<3).map { _ in EventProducer<Int>() }
    let (log, observation) = logEvents(of: outer.flatMap(.merge(maxConcurrent: 2)) { $0 })
    for inner in inners { outer.next(inner) }
    inners[2].next(30)  // waits its turn: two are observed
    inners[0].next(1)
    inners[1].next(2)
    inners[0].finish()  // the third's turn
    inners[2].next(31)
    #expect(log.items == ["1", "2", "31"])
    let (concatLog, concatObservation) = logEvents(of: outer.flatMap(.concat) { $0 })
    #expect(concatLog.items.isEmpty)
    observation.dispose()
    concatObservation.dispose()
    #expect(FlatMapStrategy.merge(maxConcurrent: 2) == .merge(maxConcurrent: 2))
    #expect(FlatMapStrategy.merge(maxConcurrent: 2) != .merge)
  }

  @Test func theQueueSpellingsForwardToTheSchedulerSpellings() {
    // Called through a protocol whose requirement is not deprecated: the deprecated calls sit in
    // a deprecated witness, so the build of the tests stays free of deprecation warnings.
    let inputs: [(Double, Int)] = [(0, 1), (0.25, 2), (2, 3)]
    let old: any OldSpellings = QueueSpellings()
    for (index, form) in old.forms.enumerated() {
      #expect(
        timeline(inputs, until: 5) { form($0, $1) } == old.expected[index],
        "form \(index)"
      )
    }
    let clock = TestScheduler()
    let ticks = Recorder<String>()
    let bag = DisposeBag()
    for ticker in old.tickers(clock) {
      ticker.observe { ticks.add("\($0)@\(clock.now)") }.disposeIn(bag)
    }
    clock.advance(by: 1)
    #expect(ticks.items == Array(repeating: "0@1.0", count: 4))
    bag.dispose()
    #expect(clock.pendingActionCount == 0)
  }

  @Test func aNegativeDurationForScheduleAfterStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = TestScheduler().schedule(after: .seconds(-1)) {}
    }
    #expect(exitTestStandardError(result).contains("schedule(after:_:): delay must be 0 or more"))
  }

  @Test func aNegativeDurationForAdvanceStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      TestScheduler().advance(by: .seconds(-1))
    }
    #expect(exitTestStandardError(result).contains("TestScheduler.advance(by:): interval must be 0 or more"))
  }

  @Test func aNegativeDurationForDelayStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().delay(for: .seconds(-1), scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("delay(for:scheduler:): interval must be 0 or more"))
  }

  @Test func aNegativeDurationForCollectStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().collect(count: 2, orEvery: .seconds(-1), scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("collect(count:orEvery:scheduler:): interval must be 0 or more"))
  }
}

/// The deprecated `queue:` spellings, each with the timeline its new spelling delivers.
private protocol OldSpellings {
  var forms: [(EventProducer<Int>, TestScheduler) -> AnyEventProducer<Int>] { get }
  var expected: [[String]] { get }
  func tickers(_ clock: TestScheduler) -> [AnyEventProducer<Int>]
}

private struct QueueSpellings: OldSpellings {
  @available(*, deprecated, message: "checks the deprecated forwarders")
  var forms: [(EventProducer<Int>, TestScheduler) -> AnyEventProducer<Int>] {
    [
      { $0.throttle(seconds: 1, queue: $1).eraseToAnyEventProducer() },
      { $0.throttle(seconds: 1, queue: $1, mode: .leading).eraseToAnyEventProducer() },
      { $0.throttle(for: .seconds(1), queue: $1).eraseToAnyEventProducer() },
      { $0.throttle(for: .seconds(1), queue: $1, mode: .leading).eraseToAnyEventProducer() },
      { $0.debounce(seconds: 0.5, queue: $1).eraseToAnyEventProducer() },
      { $0.debounce(for: .milliseconds(500), queue: $1).eraseToAnyEventProducer() },
      { $0.delay(seconds: 0.25, queue: $1).eraseToAnyEventProducer() },
      { $0.delay(for: .milliseconds(250), queue: $1).eraseToAnyEventProducer() },
      { $0.timeout(seconds: 1, queue: $1).eraseToAnyEventProducer() },
      { $0.timeout(seconds: 1, queue: $1, sending: -1).eraseToAnyEventProducer() },
      { $0.timeout(for: .seconds(1), queue: $1).eraseToAnyEventProducer() },
      { $0.timeout(for: .seconds(1), queue: $1, sending: -1).eraseToAnyEventProducer() },
      { $0.collect(count: 2, orEvery: 1, queue: $1).map { $0.reduce(0, +) }.eraseToAnyEventProducer() },
      { $0.collect(count: 2, orEvery: .seconds(1), queue: $1).map { $0.reduce(0, +) }.eraseToAnyEventProducer() },
    ]
  }

  var expected: [[String]] {
    let latest = ["2@1.0", "3@3.0"]
    let leading = ["1@0.0", "3@2.0"]
    let debounced = ["2@0.75", "3@2.5"]
    let delayed = ["1@0.25", "2@0.5", "3@2.25"]
    let timedOut = ["1@0.0", "2@0.25", "end@1.25"]
    let sent = ["1@0.0", "2@0.25", "-1@1.25", "end@1.25"]
    let collected = ["3@0.25", "3@3.0"]
    return [
      latest, leading, latest, leading, debounced, debounced, delayed, delayed,
      timedOut, sent, timedOut, sent, collected, collected,
    ]
  }

  @available(*, deprecated, message: "checks the deprecated forwarders")
  func tickers(_ clock: TestScheduler) -> [AnyEventProducer<Int>] {
    [
      EventProducer<Int>.interval(seconds: 1, queue: clock).eraseToAnyEventProducer(),
      EventProducer<Int>.interval(.seconds(1), queue: clock).eraseToAnyEventProducer(),
      EventProducer<Int>.timer(after: 1, queue: clock).eraseToAnyEventProducer(),
      EventProducer<Int>.timer(after: .seconds(1), queue: clock).eraseToAnyEventProducer(),
    ]
  }
}
