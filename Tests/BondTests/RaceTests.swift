import Testing

@testable import Bond

/// `race(_:)` (CONTRACT.md, "More of the vocabulary", rule 5).
@Suite struct RaceTests {
  @Test func forwardsTheFirstToSendAndStopsObservingTheOthers() {
    let slow = EventProducer<String>()
    let fast = EventProducer<String>()
    let log = Recorder<String>()
    race([slow, fast]).observe {
      log.add($0)
    } finished: {
      log.add("end")
    }
    #expect(slow.observerCount == 1 && fast.observerCount == 1)
    fast.next("fast")
    #expect(slow.observerCount == 0, "the loser is no longer observed")
    slow.next("slow")
    fast.next("again")
    slow.finish()
    fast.finish()
    #expect(log.items == ["fast", "again", "end"])
  }

  @Test func aReplayedEventWins() {
    let live = EventProducer<Int>()
    let replaying = Observable(7)
    let log = Recorder<String>()
    race([AnyEventProducer(live), AnyEventProducer(replaying)]).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    #expect(live.observerCount == 0, "the first producer lost during registration")
    live.next(1)
    replaying.value = 8
    #expect(log.items == ["7", "8"])
  }

  @Test func aReplayingFirstProducerWinsBeforeTheOthersAreObserved() {
    let replaying = Observable(1)
    let other = Observable(2)
    let log = Recorder<Int>()
    race([replaying, other]).observe { log.add($0) }
    #expect(log.items == [1])
    #expect(other.observerCount == 0)
  }

  @Test func endsWhenAllEndWithoutSending() {
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let log = Recorder<String>()
    race([first, second]).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    first.finish()
    #expect(log.items == [], "a loser's end alone ends nothing")
    second.finish()
    #expect(log.items == ["end"])
  }

  @Test func anEmptyArrayEndsAtOnce() {
    let log = Recorder<String>()
    race([EventProducer<Int>]()).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    #expect(log.items == ["end"])
  }

  @Test func registeredOnceEveryProducerHasRegistered() {
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let log = Recorder<String>()
    race([first, second]).observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    second.next(1)
    #expect(log.items == ["registered", "1"])
  }

  @Test func disposingIsNotAnEnd() {
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = race([first, second]).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    first.next(1)
    observation.dispose()
    first.next(2)
    first.finish()
    #expect(log.items == ["1"])
    #expect(first.observerCount == 0 && second.observerCount == 0)
  }

  @Test func stateMachineHasOneWinner() {
    var machine = RaceStateMachine<Int>(count: 3, registeredDue: false)
    guard case .ignore = machine.ended(0) else {
      Issue.record("loser end")
      return
    }
    guard case .won(winner: 2, registered: false, 5) = machine.received(5, from: 2) else {
      Issue.record("win")
      return
    }
    guard case .ignore = machine.received(6, from: 1) else {
      Issue.record("loser")
      return
    }
    guard case .deliver(7) = machine.received(7, from: 2) else {
      Issue.record("deliver")
      return
    }
    guard case .ignore = machine.ended(1) else {
      Issue.record("loser end")
      return
    }
    guard case .end = machine.ended(2) else {
      Issue.record("end")
      return
    }
  }

  @Test func stateMachineCallsRegisteredOnceEveryProducerHasRegistered() {
    var machine = RaceStateMachine<Int>(count: 2, registeredDue: true)
    guard case .ignore = machine.registrationEnded(0), case .callRegistered = machine.registrationEnded(1) else {
      Issue.record("registered after the last registration")
      return
    }
    guard case .won(winner: 1, registered: false, 3) = machine.received(3, from: 1) else {
      Issue.record("win, registered already called")
      return
    }
  }

  @Test func stateMachineStopsOnASecondRegistration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = RaceStateMachine<Int>(count: 2, registeredDue: true)
      _ = machine.registrationEnded(0)
      _ = machine.registrationEnded(0)
    }
    #expect(
      exitTestStandardError(result).contains(
        "RaceStateMachine.registrationEnded: producer 0's registration ended twice"
      )
    )
  }
}
