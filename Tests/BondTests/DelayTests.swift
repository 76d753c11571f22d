import BondTesting
import Testing

@Suite struct DelayTests {
  @Test func eachEventSecondsLaterInOrder() {
    #expect(
      timeline([(0, 1), (0.5, 2), (0.6, 3)], until: 5) { $0.delay(seconds: 1, queue: $1) }
        == ["1@1.0", "2@1.5", "3@1.6"]
    )
  }

  @Test func theEndAfterTheLastEvent() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let later = Recorder<String>()
    source.delay(seconds: 1, queue: clock).observe {
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
    source.delay(seconds: 1, queue: clock).observe {
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
    source.delay(seconds: 1, queue: clock).observe(
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
    let observation = source.delay(seconds: 1, queue: clock).observe { later.add($0) }
    source.next(1)
    clock.advance(by: 0.5)
    observation.dispose()
    source.next(2)
    clock.advance(by: 2)
    #expect(later.items == [] && source.observerCount == 0)
  }

  @Test func durationForm() {
    #expect(
      timeline([(0, 1), (0.2, 2)], until: 5) { $0.delay(for: .milliseconds(500), queue: $1) }
        == ["1@0.5", "2@0.7"]
    )
  }

  @Test func negativeSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().delay(seconds: -1, queue: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("delay(seconds:queue:): seconds must be 0 or more, got -1.0"))
  }

  @Test func nanSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().delay(seconds: .nan, queue: TestScheduler())
    }
    #expect(exitTestStandardError(result).contains("delay(seconds:queue:): seconds must be 0 or more, got nan"))
  }
}
