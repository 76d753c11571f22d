import BondTesting
import Testing

@Suite struct DelayTests {
  @Test func eachEventSecondsLaterInOrder() {
    #expect(
      timeline([(0, 1), (0.5, 2), (0.6, 3)], until: 5) { $0.delay(seconds: 1, scheduler: $1) }
        == ["1@1.0", "2@1.5", "3@1.6"]
    )
  }

  @Test func theEndAfterTheLastEvent() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let later = Recorder<String>()
    source.delay(seconds: 1, scheduler: clock).observe {
      later.add("\($0)")
    } finished: {
      later.add("end")
    }
    source.next(1)
    clock.advance(by: 0.5)
    source.next(2)
    source.finish()
    clock.advance(by: 0.6)
    #expect(later.items == ["1"])
    clock.advance(by: 1)
    #expect(later.items == ["1", "2", "end"])
  }

  @Test func theEndWithNothingWaitingComesAtOnceOnTheQueue() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let later = Recorder<String>()
    source.delay(seconds: 1, scheduler: clock).observe {
      later.add("\($0)")
    } finished: {
      later.add("end")
    }
    source.finish()
    clock.advance(by: 0)
    #expect(later.items == ["end"])
  }

  @Test func theReplayIsDelayedAndRegisteredFollowsIt() {
    let clock = TestScheduler()
    let source = EventProducer<Int>(replayLength: 2)
    source.next(1)
    source.next(2)
    let later = Recorder<String>()
    source.delay(seconds: 1, scheduler: clock).observe(
      with: EventObserver({ later.add("\($0)") }, registered: { later.add("registered") })
    )
    source.next(3)
    clock.advance(by: 0.5)
    #expect(later.items == [])
    clock.advance(by: 0.5)
    #expect(later.items == ["1", "2", "registered", "3"])
  }

  @Test func disposeMidStreamDropsTheWaitingEvents() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let later = Recorder<Int>()
    let observation = source.delay(seconds: 1, scheduler: clock).observe { later.add($0) }
    source.next(1)
    clock.advance(by: 0.5)
    observation.dispose()
    source.next(2)
    clock.advance(by: 2)
    #expect(later.items == [] && source.observerCount == 0)
  }

  @Test func durationForm() {
    #expect(
      timeline([(0, 1), (0.2, 2)], until: 5) { $0.delay(for: .milliseconds(500), scheduler: $1) }
        == ["1@0.5", "2@0.7"]
    )
  }

  @Test func negativeSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().delay(seconds: -1, scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("delay(seconds:scheduler:): seconds must be 0 or more, got -1.0"))
  }

  @Test func nanSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().delay(seconds: .nan, scheduler: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("delay(seconds:scheduler:): seconds must be 0 or more, got nan"))
  }

  // MARK: - Dispose releases the timers (issue 17, item 5)

  /// Guarantee 6: after dispose() no timer is left on the scheduler (a timer holds the sink, its
  /// delivery and the scheduler: a cycle until the deadline), and what the observer captured is
  /// released at once.
  @Test func disposeCancelsTheTimersAndReleasesTheObserver() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    weak var weakCapture: Tracked?
    let observation: any DisposableType
    do {
      let tracked = Tracked()
      weakCapture = tracked
      observation = source.delay(seconds: 1, scheduler: clock).observe { _ in _ = tracked }
    }
    for value in 1...5 { source.next(value) }
    #expect(clock.pendingActionCount == 5)
    observation.dispose()
    #expect(clock.pendingActionCount == 0)
    #expect(weakCapture == nil)
  }

  /// Fired timers are forgotten: after some events are delivered, dispose() cancels only the rest.
  @Test func disposeAfterSomeDeliveriesCancelsTheRest() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let later = Recorder<Int>()
    let observation = source.delay(seconds: 1, scheduler: clock).observe { later.add($0) }
    source.next(1)
    clock.advance(by: 0.5)
    source.next(2)
    source.next(3)
    clock.advance(by: 0.6)
    #expect(later.items == [1] && clock.pendingActionCount == 2)
    observation.dispose()
    #expect(clock.pendingActionCount == 0)
    clock.run()
    #expect(later.items == [1])
  }

  /// Disposing inside the last delivery: no `finished` after it.
  @Test func disposeInsideTheLastDeliveryIsNotAnEnd() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let holder = SerialDisposable()
    holder.otherDisposable = source.delay(seconds: 1, scheduler: clock).observe {
      log.add("\($0)")
      holder.dispose()
    } finished: {
      log.add("end")
    }
    source.next(1)
    source.finish()
    clock.run()
    #expect(log.items == ["1"])
  }
}
