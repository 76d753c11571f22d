import Testing
@testable import Bond

/// The pure state machine of every scheduled delivery (deliverOn, batches, partition and the output
/// of the timed operators), driven by hand (no threads, no time).
@Suite struct ScheduledDeliveryStateMachineTests {
  private typealias Delivery = ScheduledDeliveryStateMachine<Int>

  private func delivery(
    limit: Int = .max,
    policy: DeliveryOverflowPolicy = .dropOldest,
    registered: Bool = true
  ) -> Delivery {
    Delivery(
      observer: UncheckedSendable { _ in },
      registered: registered ? UncheckedSendable {} : nil,
      bufferLimit: limit,
      overflowPolicy: policy
    )
  }

  private func isStartDrain(_ action: Delivery.ReceiveAction) -> Bool {
    if case .startDrain = action { return true }
    return false
  }

  @Test func onlyTheFirstEventOfAnIdleDeliveryStartsADrain() {
    var machine = delivery()
    #expect(isStartDrain(machine.eventReceived(1)))
    #expect(!isStartDrain(machine.eventReceived(2)))
    var batch = WorkQueue<Int>()
    guard case .deliver(_, nil) = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("no batch")
      return
    }
    #expect(batch.count == 2 && machine.buffer.isEmpty)
    _ = batch.pop()
    _ = batch.pop()
    guard case .exit(.stop) = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("did not stop")
      return
    }
    #expect(machine.state == .idle)
    #expect(isStartDrain(machine.eventReceived(3)), "idle again: the next event starts a new drain")
  }

  @Test func aDrainThatHasDeliveredItsShareReschedules() {
    var machine = delivery()
    _ = machine.eventReceived(1)
    var batch = WorkQueue<Int>()
    guard case .exit(.reschedule) = machine.nextBatch(&batch, mayContinue: false) else {
      Issue.record("no reschedule")
      return
    }
    #expect(machine.state == .draining && machine.buffer.count == 1)
  }

  @Test func registeredComesAfterTheEventsWaitingWhenTheRegistrationEnds() {
    var machine = delivery()
    _ = machine.eventReceived(1)
    _ = machine.eventReceived(2)
    _ = machine.registrationEnded()
    _ = machine.eventReceived(3)
    var batch = WorkQueue<Int>()
    guard case .deliver(_, let registered?) = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("no registered")
      return
    }
    #expect(registered.offset == 2 && batch.count == 3)
    #expect(machine.registered == nil && machine.registeredAfter == nil)
  }

  @Test func registeredAloneStartsADrain() {
    var machine = delivery()
    #expect(isStartDrain(machine.registrationEnded()))
    var batch = WorkQueue<Int>()
    guard case .deliver(_, let registered?) = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("no registered")
      return
    }
    #expect(registered.offset == 0 && batch.isEmpty)
  }

  @Test func withoutACallbackTheRegistrationEndIsIgnored() {
    var machine = delivery(registered: false)
    #expect(!isStartDrain(machine.registrationEnded()) && machine.state == .idle)
  }

  @Test func boundedDropOldestShiftsRegistered() {
    var machine = delivery(limit: 2, policy: .dropOldest)
    _ = machine.eventReceived(1)
    _ = machine.eventReceived(2)
    _ = machine.registrationEnded()  // after 1, 2
    guard case .dropped(1?) = machine.eventReceived(3) else {
      Issue.record("1 not dropped")
      return
    }
    #expect(machine.registeredAfter == 1)  // now after 2
    guard case .deliver(_, 2, _) = machine.nextEvent(mayContinue: true) else {
      Issue.record("not 2")
      return
    }
    guard case .registered = machine.nextEvent(mayContinue: true) else {
      Issue.record("not registered")
      return
    }
    guard case .deliver(_, 3, _) = machine.nextEvent(mayContinue: true) else {
      Issue.record("not 3")
      return
    }
    guard case .exit(.stop) = machine.nextEvent(mayContinue: true) else {
      Issue.record("not stop")
      return
    }
  }

  @Test func boundedDropNewestStillEndsTheRegistration() {
    var machine = delivery(limit: 1, policy: .dropNewest)
    _ = machine.eventReceived(1)
    guard case .dropped(nil) = machine.eventReceived(2, endsRegistration: true) else {
      Issue.record("2 kept")
      return
    }
    #expect(machine.registeredAfter == 1)
  }

  @Test func disposedTakesEverythingOutAndIgnoresLaterEvents() {
    var machine = delivery()
    _ = machine.eventReceived(1)
    _ = machine.attach(SimpleDisposable())
    let released = machine.disposed()
    #expect(
      released.buffer.count == 1 && released.observer != nil && released.registered != nil && released.upstream != nil
    )
    #expect(machine.isDisposed && machine.buffer.isEmpty)
    guard case .none = machine.eventReceived(2) else {
      Issue.record("event accepted")
      return
    }
    #expect(machine.attach(SimpleDisposable()) != nil, "a late upstream is handed back to dispose")
    var batch = WorkQueue<Int>()
    guard case .exit(.stop) = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("drain went on")
      return
    }
  }
}

// MARK: - The end

extension ScheduledDeliveryStateMachineTests {
  @Test func deliverOnEndComesAfterTheBufferAndEndsTheDelivery() {
    var machine = ScheduledDeliveryStateMachine<Int>(
      observer: UncheckedSendable { _ in },
      registered: nil,
      finished: {},
      bufferLimit: .max,
      overflowPolicy: .dropOldest
    )
    guard case .startDrain = machine.eventReceived(1) else {
      Issue.record("no drain")
      return
    }
    guard case .none = machine.endReceived() else {
      Issue.record("a drain is already under way: the end joins it")
      return
    }
    guard case .none = machine.eventReceived(2) else {
      Issue.record("an event after the end")
      return
    }
    var batch = WorkQueue<Int>()
    guard case .deliver = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("no batch")
      return
    }
    #expect(batch.count == 1, "the event after the end was not taken")
    _ = batch.pop()
    guard case .exit(.finish(let released)) = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("no end")
      return
    }
    #expect(released.finished?.value != nil && released.observer != nil)
    #expect(machine.isDisposed && machine.state == .over, "over: no drain starts again")
    guard case .none = machine.endReceived() else {
      Issue.record("a second end")
      return
    }
  }

  @Test func deliverOnEndIntoAnIdleDeliveryStartsADrain() {
    var machine = delivery(registered: false)
    guard case .startDrain = machine.endReceived() else {
      Issue.record("no drain")
      return
    }
    guard case .exit(.finish(let released)) = machine.nextEvent(mayContinue: true) else {
      Issue.record("no end")
      return
    }
    #expect(released.finished?.value == nil, "nobody asked for the end: nil stays nil")
  }

  @Test func boundedDeliverOnEndTakesNoPlaceInTheBuffer() {
    var machine = delivery(limit: 1, registered: false)
    _ = machine.eventReceived(1)
    _ = machine.endReceived()
    #expect(machine.buffer.count == 1 && machine.state == .ending)
    guard case .deliver(_, 1, _) = machine.nextEvent(mayContinue: true) else {
      Issue.record("the event first")
      return
    }
    guard case .exit(.finish) = machine.nextEvent(mayContinue: true) else {
      Issue.record("then the end")
      return
    }
  }
}

// MARK: - The states

extension ScheduledDeliveryStateMachineTests {
  /// Idle, draining (the first event), ending (the upstream's end), over (the drain took the end).
  @Test func theStateGoesFromIdleToOverThroughTheDrainAndTheEnd() {
    var machine = delivery(registered: false)
    #expect(machine.state == .idle)
    _ = machine.eventReceived(1)
    #expect(machine.state == .draining)
    var batch = WorkQueue<Int>()
    _ = machine.nextBatch(&batch, mayContinue: true)
    _ = batch.pop()
    _ = machine.nextBatch(&batch, mayContinue: true)
    #expect(machine.state == .idle, "nothing left: idle again")
    _ = machine.eventReceived(2)
    _ = machine.endReceived()
    #expect(machine.state == .ending)
    guard case .none = machine.registrationEnded() else {
      Issue.record("nothing to start: a drain is under way")
      return
    }
    _ = machine.nextBatch(&batch, mayContinue: true)
    _ = batch.pop()
    guard case .exit(.finish) = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("the end after the last event")
      return
    }
    #expect(machine.state == .over)
  }

  @Test func aDisposedDeliveryIsOverWhateverItsDrain() {
    var machine = delivery()
    _ = machine.eventReceived(1)
    _ = machine.disposed()
    #expect(machine.state == .over)
    guard case .none = machine.endReceived(), case .none = machine.registrationEnded() else {
      Issue.record("nothing after dispose")
      return
    }
  }

  @Test func aDrainStepWhileNoDrainWasStartedStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = ScheduledDeliveryStateMachine<Int>(
        observer: UncheckedSendable { _ in },
        registered: nil,
        bufferLimit: 1,
        overflowPolicy: .dropOldest
      )
      _ = machine.nextEvent(mayContinue: true)
    }
    #expect(exitTestStandardError(result).contains("ScheduledDeliveryStateMachine.drain"))
  }
}
