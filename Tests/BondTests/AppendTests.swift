import Testing

@testable import Bond

/// `append(_:)` (CONTRACT.md, "More of the vocabulary", rules 1 and 6).
@Suite struct AppendTests {
  @Test func observesOtherOnceTheReceiverHasEnded() {
    let first = EventProducer<Int>()
    let then = EventProducer<Int>()
    let log = Recorder<String>()
    first.append(then).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    #expect(then.observerCount == 0, "other is not observed before the receiver's end")
    first.next(1)
    then.next(99)
    first.finish()
    #expect(then.observerCount == 1)
    then.next(2)
    then.finish()
    #expect(log.items == ["1", "2", "end"])
  }

  @Test func otherReplaysItsValue() {
    let first = EventProducer<Int>()
    let then = Observable(7)
    let log = Recorder<String>()
    first.append(then).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    first.next(1)
    then.value = 8
    first.finish()
    then.value = 9
    #expect(log.items == ["1", "8", "9"])
  }

  @Test func anEndedOtherEndsAtOnce() {
    let first = EventProducer<Int>()
    let then = EventProducer<Int>()
    then.finish()
    let log = Recorder<String>()
    first.append(then).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    first.next(1)
    first.finish()
    #expect(log.items == ["1", "end"])
  }

  @Test func keepsOtherAliveUntilItIsObserved() {
    let first = EventProducer<Int>()
    let log = Recorder<String>()
    do {
      let then = Observable(5)
      first.append(then).observe {
        log.add("\($0)")
      } finished: {
        log.add("end")
      }
    }
    first.finish()
    // Observed once the receiver has ended: it replays, then, no longer held by anyone, it goes and
    // ends its observers, as an upstream that is deallocated does.
    #expect(log.items == ["5", "end"])
  }

  @Test func registeredComesWithTheReceiversRegistration() {
    let first = Observable(1)
    let then = EventProducer<Int>()
    let log = Recorder<String>()
    first.append(then).observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    #expect(log.items == ["1", "registered"])
  }

  @Test func disposingIsNotAnEnd() {
    let first = EventProducer<Int>()
    let then = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = first.append(then).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    first.finish()
    observation.dispose()
    then.next(1)
    then.finish()
    #expect(log.items == [])
    #expect(first.observerCount == 0 && then.observerCount == 0)
  }

  @Test func stateMachineObservesOtherOnceAndEndsOnce() {
    var machine = AppendStateMachine<Int>(registeredDue: true)
    guard case .deliver(1) = machine.received(1) else {
      Issue.record("deliver")
      return
    }
    guard case .observeOther(registered: true) = machine.firstEnded() else {
      Issue.record("observeOther")
      return
    }
    guard case .ignore = machine.registrationEnded() else {
      Issue.record("ignore")
      return
    }
    guard case .end = machine.otherEnded() else {
      Issue.record("end")
      return
    }
    guard case .ignore = machine.received(2) else {
      Issue.record("after end")
      return
    }
  }

  @Test func stateMachineCallsRegisteredOnceBeforeTheEnd() {
    var machine = AppendStateMachine<Int>(registeredDue: true)
    guard case .callRegistered = machine.registrationEnded() else {
      Issue.record("registered")
      return
    }
    guard case .observeOther(registered: false) = machine.firstEnded() else {
      Issue.record("observeOther, registered already called")
      return
    }
  }

  @Test func stateMachineStopsWhenOtherEndsBeforeItIsObserved() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = AppendStateMachine<Int>(registeredDue: false)
      _ = machine.otherEnded()
    }
    #expect(exitTestStandardError(result).contains("AppendStateMachine.otherEnded: other ended before it was observed"))
  }
}
