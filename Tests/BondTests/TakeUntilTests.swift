import Testing

@testable import Bond

@Suite struct TakeUntilTests {
  @Test func endsAtTheTriggersFirstEvent() {
    let source = EventProducer<Int>()
    let trigger = EventProducer<Void>()
    let log = Recorder<String>()
    let observation = source.take(until: trigger).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    #expect(source.observerCount == 1 && trigger.observerCount == 1)
    source.next(1)
    source.next(2)
    trigger.next(())
    source.next(3)
    #expect(log.items == ["1", "2", "end"])
    #expect(source.observerCount == 0 && trigger.observerCount == 0)
    #expect(observation.isDisposed)
  }

  @Test func theTriggersEndAloneEndsNothing() {
    let source = EventProducer<Int>()
    let trigger = EventProducer<Int>()
    let log = Recorder<String>()
    source.take(until: trigger).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    trigger.finish()
    source.next(1)
    source.next(2)
    #expect(log.items == ["1", "2"])
    source.finish()
    #expect(log.items == ["1", "2", "end"])
    #expect(source.observerCount == 0)
  }

  @Test func aReplayedTriggerEventEndsAtOnce() {
    let source = EventProducer<Int>(replayLength: 1)
    source.next(1)
    let trigger = Observable(true)
    let log = Recorder<String>()
    let observation = source.take(until: trigger).observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    #expect(log.items == ["registered", "end"])
    #expect(source.observerCount == 0 && trigger.observerCount == 0 && observation.isDisposed)
  }

  @Test func forwardsTheSourcesReplay() {
    let source = EventProducer<Int>(replayLength: 2)
    source.next(1)
    source.next(2)
    let trigger = EventProducer<Int>()
    let taken = source.take(until: trigger)
    #expect(taken.replayLength == 2)
    let log = Recorder<String>()
    let observation = taken.observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    source.next(3)
    trigger.next(0)
    #expect(log.items == ["1", "2", "registered", "3", "end"])
    #expect(observation.isDisposed)
  }

  @Test func passesTheSourcesEndThroughOnce() {
    let source = EventProducer<Int>()
    let trigger = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = source.take(until: trigger).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    source.next(1)
    source.finish()
    trigger.next(0)
    #expect(log.items == ["1", "end"])
    #expect(trigger.observerCount == 0 && observation.isDisposed)
  }

  @Test func reentrantTriggerFromAnObserver() {
    let source = EventProducer<Int>()
    let trigger = EventProducer<Int>()
    let log = Recorder<String>()
    source.take(until: trigger).observe { value in
      log.add("\(value)")
      if value == 2 { trigger.next(0) }
      source.next(value + 1)
    } finished: {
      log.add("end")
    }
    source.next(1)
    #expect(log.items == ["1", "2", "end"])
    #expect(source.observerCount == 0 && trigger.observerCount == 0)
  }

  @Test func disposeMidStreamIsNotAnEnd() {
    let source = EventProducer<Int>()
    let trigger = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = source.take(until: trigger).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    source.next(1)
    observation.dispose()
    source.next(2)
    trigger.next(0)
    #expect(log.items == ["1"])
    #expect(source.observerCount == 0 && trigger.observerCount == 0)
  }

  @Test func releasesTheObserverAtTheStop() {
    let source = EventProducer<Int>()
    let trigger = EventProducer<Int>()
    weak var weakCapture: Tracked?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      source.take(until: trigger).observe { _ in _ = tracked }
    }
    #expect(weakCapture != nil)
    trigger.next(0)
    #expect(weakCapture == nil)
  }
}

/// The machine alone, with no threads: each input's method and the action it returns.
@Suite struct TakeUntilStateMachineTests {
  typealias Machine = TakeUntilStateMachine<Int>

  @Test func forwardsThenEndsOnceAndIgnoresTheRest() {
    var machine = Machine(registeredDue: true)
    guard case .deliver(1) = machine.received(1) else {
      Issue.record("an event is delivered")
      return
    }
    guard case .callRegistered = machine.registrationEnded() else {
      Issue.record("registered is forwarded once")
      return
    }
    guard case .end(callingRegisteredFirst: false) = machine.triggered() else {
      Issue.record("the trigger ends it")
      return
    }
    guard case .ignore = machine.received(2), case .ignore = machine.upstreamEnded(),
      case .ignore = machine.triggered()
    else {
      Issue.record("nothing after the end")
      return
    }
  }

  @Test func anEndDuringRegistrationCallsRegisteredFirstAndIgnoresTheLateRegistration() {
    var machine = Machine(registeredDue: true)
    guard case .end(callingRegisteredFirst: true) = machine.triggered() else {
      Issue.record("registered is still due at the end")
      return
    }
    guard case .ignore = machine.registrationEnded() else {
      Issue.record("a registration that ends after the end does nothing")
      return
    }
  }

  @Test func theUpstreamsEndPassesThrough() {
    var machine = Machine(registeredDue: false)
    guard case .end(callingRegisteredFirst: false) = machine.upstreamEnded() else {
      Issue.record("the upstream's end ends it")
      return
    }
    guard case .ignore = machine.triggered() else {
      Issue.record("a trigger after the end does nothing")
      return
    }
  }

  @Test func aRegistrationThatIsNotDueStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = TakeUntilStateMachine<Int>(registeredDue: false)
      _ = machine.registrationEnded()
    }
    #expect(exitTestStandardError(result).contains("TakeUntilStateMachine.registrationEnded"))
  }
}
