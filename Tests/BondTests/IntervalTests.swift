import Bond
import Dispatch
import BondTesting
import Testing

@Suite struct IntervalTests {
  @Test func intervalTicksEveryPeriodFromObserve() {
    let clock = TestScheduler()
    let ticks = Recorder<String>()
    let observation = EventProducer<Int>.interval(seconds: 1, scheduler: clock).observe {
      ticks.add("\($0)@\(clock.now)")
    }
    clock.advance(by: 0.99)
    #expect(ticks.items == [])
    clock.advance(by: 2.51)
    #expect(ticks.items == ["0@1.0", "1@2.0", "2@3.0"])
    observation.dispose()
    clock.advance(by: 5)
    #expect(ticks.items.count == 3)
    #expect(clock.pendingActionCount == 0)
  }

  @Test func intervalWithDuration() {
    let clock = TestScheduler()
    let ticks = Recorder<Int>()
    let ended = Recorder<String>()
    EventProducer<Int>.interval(every: .milliseconds(500), scheduler: clock).take(3).observe {
      ticks.add($0)
    } finished: {
      ended.add("end@\(clock.now)")
    }
    clock.advance(by: 3.5)
    #expect(ticks.items == [0, 1, 2])
    #expect(ended.items == ["end@1.5"])
    #expect(clock.pendingActionCount == 0)
  }

  @Test func intervalIsCold() {
    let clock = TestScheduler()
    let ticks = EventProducer<Int>.interval(seconds: 1, scheduler: clock)
    let first = Recorder<String>()
    let second = Recorder<String>()
    ticks.observe { first.add("\($0)@\(clock.now)") }
    clock.advance(by: 0.5)
    ticks.observe { second.add("\($0)@\(clock.now)") }
    clock.advance(by: 1.5)
    #expect(first.items == ["0@1.0", "1@2.0"])
    #expect(second.items == ["0@1.5"])
  }

  @Test func intervalRegistersAtOnce() {
    let clock = TestScheduler()
    let log = Recorder<String>()
    EventProducer<Int>.interval(seconds: 1, scheduler: clock).observe {
      log.add("\($0)")
    } registered: {
      log.add("registered")
    }
    #expect(log.items == ["registered"])
  }

  /// Each tick is due at start + (n + 1) × period, not one period after the previous one: over
  /// 10,000 ticks of a period a `Double` does not hold exactly, the last is on time.
  @Test func intervalDoesNotDrift() {
    let clock = TestScheduler()
    clock.advance(by: 0.3)
    let start = clock.now
    let period = 0.1
    let count = Recorder<Int>()
    let late = Recorder<Double>()
    EventProducer<Int>.interval(seconds: period, scheduler: clock).observe { tick in
      count.add(tick)
      late.add(abs(clock.now - (start + Double(tick + 1) * period)))
    }
    clock.advance(to: start + 10_000 * period)
    #expect(count.items.count == 10_000)
    #expect(count.items.last == 9_999)
    #expect((late.items.max() ?? 1) < 1e-9)
  }

  @Test func disposeInsideATickStopsTheTicks() {
    let clock = TestScheduler()
    let ticks = Recorder<Int>()
    let holder = Recorder<any DisposableType>()
    holder.add(
      EventProducer<Int>.interval(seconds: 1, scheduler: clock).observe { tick in
        ticks.add(tick)
        if tick == 1 { holder.items.first?.dispose() }
      }
    )
    clock.advance(by: 5)
    #expect(ticks.items == [0, 1])
    #expect(clock.pendingActionCount == 0)
  }

  @Test func timerSendsZeroThenEnds() {
    let clock = TestScheduler()
    let fired = Recorder<String>()
    let later = Recorder<String>()
    EventProducer<Int>.timer(after: 2, scheduler: clock).observe {
      fired.add("\($0)@\(clock.now)")
    } finished: {
      fired.add("end")
    }
    EventProducer<Int>.timer(after: .seconds(1), scheduler: clock).observe {
      later.add("\($0)")
    } finished: {
      later.add("end")
    }
    clock.advance(by: 1.5)
    #expect(fired.items == [] && later.items == ["0", "end"])
    clock.advance(by: 1)
    #expect(fired.items == ["0@2.0", "end"])
    #expect(clock.pendingActionCount == 0)
  }

  @Test func timerDisposedBeforeItFiresSendsNothing() {
    let clock = TestScheduler()
    let fired = Recorder<String>()
    let observation = EventProducer<Int>.timer(after: 1, scheduler: clock).observe {
      fired.add("\($0)")
    } finished: {
      fired.add("end")
    }
    observation.dispose()
    #expect(observation.isDisposed)
    clock.advance(by: 2)
    #expect(fired.items == [])
    #expect(clock.pendingActionCount == 0)
  }

  @Test func timerOnADispatchQueue() async {
    let queue = DispatchQueue(label: "timer")
    let value = await withCheckedContinuation { continuation in
      EventProducer<Int>.timer(after: .milliseconds(10), scheduler: queue).observe {
        continuation.resume(returning: $0)
      }
    }
    #expect(value == 0)
  }

  @Test func intervalNegativeStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>.interval(seconds: -1, scheduler: TestScheduler())
    }
    #expect(
      exitTestStandardError(result).contains("interval(seconds:scheduler:): seconds must be more than 0, got -1.0")
    )
  }

  @Test func intervalNaNStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>.interval(seconds: .nan, scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("interval(seconds:scheduler:)"))
  }

  @Test func intervalDurationNegativeStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>.interval(every: .seconds(-1), scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("interval(every:scheduler:)"))
  }

  @Test func timerNegativeStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>.timer(after: -1, scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("timer(after:scheduler:): seconds must be 0 or more, got -1.0"))
  }

  @Test func timerDurationNegativeStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>.timer(after: .seconds(-1), scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("timer(after:scheduler:)"))
  }
}
