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
    Delivery(awaitsRegistered: registered, bufferLimit: limit, overflowPolicy: policy)
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
    guard case .deliver(registeredAt: nil) = machine.nextBatch(&batch, mayContinue: true) else {
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
    guard case .deliver(let registeredAt?) = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("no registered")
      return
    }
    #expect(registeredAt == 2 && batch.count == 3)
    #expect(machine.registration == .absent, "handed over: never due again")
  }

  @Test func registeredAloneStartsADrain() {
    var machine = delivery()
    #expect(isStartDrain(machine.registrationEnded()))
    var batch = WorkQueue<Int>()
    guard case .deliver(let registeredAt?) = machine.nextBatch(&batch, mayContinue: true) else {
      Issue.record("no registered")
      return
    }
    #expect(registeredAt == 0 && batch.isEmpty)
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
    #expect(machine.registration == .due(after: 1))  // now after 2
    guard case .deliver(2, _) = machine.nextEvent(mayContinue: true) else {
      Issue.record("not 2")
      return
    }
    guard case .registered = machine.nextEvent(mayContinue: true) else {
      Issue.record("not registered")
      return
    }
    guard case .deliver(3, _) = machine.nextEvent(mayContinue: true) else {
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
    #expect(machine.registration == .due(after: 1))
  }

  @Test func disposedTakesEverythingOutAndIgnoresLaterEvents() {
    var machine = delivery()
    _ = machine.eventReceived(1)
    guard case .keep = machine.attached() else {
      Issue.record("a live delivery keeps its upstream")
      return
    }
    let released = machine.disposed()
    #expect(released.buffer.count == 1)
    #expect(machine.isDisposed && machine.buffer.isEmpty && machine.registration == .absent)
    guard case .none = machine.eventReceived(2) else {
      Issue.record("event accepted")
      return
    }
    guard case .disposeAtOnce = machine.attached() else {
      Issue.record("a late upstream is disposed at once")
      return
    }
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
    var machine = delivery(registered: false)
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
    #expect(released.buffer.isEmpty && !released.releasesPressure)
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
    guard case .exit(.finish) = machine.nextEvent(mayContinue: true) else {
      Issue.record("no end")
      return
    }
    #expect(machine.state == .over)
  }

  @Test func boundedDeliverOnEndTakesNoPlaceInTheBuffer() {
    var machine = delivery(limit: 1, registered: false)
    _ = machine.eventReceived(1)
    _ = machine.endReceived()
    #expect(machine.buffer.count == 1 && machine.state == .ending)
    guard case .deliver(1, _) = machine.nextEvent(mayContinue: true) else {
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
        awaitsRegistered: false,
        bufferLimit: 1,
        overflowPolicy: .dropOldest
      )
      _ = machine.nextEvent(mayContinue: true)
    }
    #expect(exitTestStandardError(result).contains("ScheduledDeliveryStateMachine.drain"))
  }
}

// MARK: - Pure: no closure in the machine

extension ScheduledDeliveryStateMachineTests {
  /// The type names of every value `value` holds (its fields, their fields, an optional's content,
  /// an enum's payload), `depth` levels down.
  private func heldTypeNames(_ value: Any, depth: Int = 4) -> [String] {
    guard depth > 0 else { return [] }
    return Mirror(reflecting: value).children.flatMap { child in
      [String(reflecting: type(of: child.value))] + heldTypeNames(child.value, depth: depth - 1)
    }
  }

  /// Whether a type name is a closure, the upstream observation, a lock, an atomic or a task.
  private func isImpure(_ typeName: String) -> Bool {
    ["->", "DisposableType", "Lock", "Mutex", "Atomic", "Task", "Thread"].contains { typeName.contains($0) }
  }

  /// The machine holds events and counts only: the observer's closures and the upstream observation
  /// live beside it, in the delivery's locked state. Checked on its fields, fresh and with the
  /// drain and the registration under way.
  @Test func theMachineHoldsNoClosureNoDisposableAndNoLock() {
    var machine = delivery(limit: 4, policy: .backpressure)
    let fresh = heldTypeNames(machine)
    #expect(!fresh.isEmpty, "Mirror sees the fields")
    #expect(fresh.filter(isImpure).isEmpty, "\(fresh.filter(isImpure))")
    _ = machine.eventReceived(1, sampleStart: 0)
    _ = machine.registrationEnded()
    _ = machine.eventReceived(2)
    _ = machine.nextEvent(mayContinue: true)
    let busy = heldTypeNames(machine)
    #expect(busy.filter(isImpure).isEmpty, "\(busy.filter(isImpure))")
    // The check itself sees a closure where there is one.
    #expect(
      heldTypeNames(Locked(observer: nil, registered: nil, finished: nil, machine: machine)).contains(where: isImpure)
    )
  }
}

// MARK: - Beside the machine: the closures under the delivery's lock

extension ScheduledDeliveryStateMachineTests {
  private typealias Locked = ScheduledDeliveryLockedState<Int>

  /// A locked state whose closures each hold `token` (watched through a weak reference).
  private func locked(holding token: Tracked, limit: Int = .max) -> Locked {
    Locked(
      observer: UncheckedSendable { _ in _ = token },
      registered: UncheckedSendable { _ = token },
      finished: UncheckedSendable { _ = token },
      machine: delivery(limit: limit)
    )
  }

  /// ``locked(holding:limit:)`` with a fresh token, and whether that token is gone (every closure
  /// that held it released).
  private func watchedLocked(limit: Int = .max) -> (state: Locked, isReleased: () -> Bool) {
    let token = Tracked()
    weak var watched = token
    return (locked(holding: token, limit: limit), { watched == nil })
  }

  @Test func aDrainStepHandsOverTheObserverAndTheDueRegisteredOnce() {
    var state = locked(holding: Tracked())
    _ = state.machine.eventReceived(1)
    _ = state.machine.registrationEnded()
    var batch = WorkQueue<Int>()
    guard case .deliver(_, let registered?) = state.nextBatch(&batch, mayContinue: true, arrays: false) else {
      Issue.record("no observer or no registered")
      return
    }
    #expect(registered.offset == 1 && state.registered == nil, "taken out with the step")
    _ = batch.pop()
    guard case .exit(.stop) = state.nextBatch(&batch, mayContinue: true, arrays: false) else {
      Issue.record("did not stop")
      return
    }
    #expect(state.observer != nil && state.finished != nil, "kept while the delivery lives")
  }

  /// Guarantee 6: disposing releases every closure at once (here, when `released` goes, outside
  /// the lock), even though the delivery itself lives on.
  @Test func disposalTakesOutEveryClosureAndTheUpstream() {
    var (state, isReleased) = watchedLocked()
    _ = state.attach(SimpleDisposable())
    _ = state.machine.eventReceived(1)
    do {
      let released = state.disposed()
      #expect(released.observer != nil && released.registered != nil && released.finished != nil)
      #expect(released.upstream != nil && released.disposal.buffer.count == 1)
      withExtendedLifetime(released) { #expect(!isReleased(), "released by the caller, after the lock") }
    }
    #expect(isReleased(), "no closure left in the state")
    #expect(state.attach(SimpleDisposable()) != nil, "a late upstream is handed back to dispose")
  }

  @Test func theEndHandsOverFinishedWithEverythingElse() {
    var (state, isReleased) = watchedLocked(limit: 2)
    _ = state.machine.endReceived()
    var chunk = WorkQueue<Int>()
    do {
      guard case .exit(.finish(let released)) = state.nextEvent(mayContinue: true, chunk: &chunk, chunkLimit: 1) else {
        Issue.record("no end")
        return
      }
      #expect(released.finished != nil && released.observer != nil && state.machine.state == .over)
      #expect(state.observer == nil && state.finished == nil && state.registered == nil)
      withExtendedLifetime(released) {
        #expect(!isReleased(), "the drain holds `released` until it has called `finished`")
      }
    }
    #expect(isReleased(), "then nothing holds the closures")
  }
}
