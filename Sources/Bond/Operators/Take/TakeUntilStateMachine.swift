/// What reaches the serializer of a ``TakeUntil`` observation.
@usableFromInline
enum TakeUntilInput<Event> {
  /// An upstream event.
  case event(Event)
  /// The upstream's registration has ended.
  case registered
  /// The upstream has ended.
  case upstreamEnded
  /// The trigger has sent an event.
  case triggered
}

/// The decisions of one ``TakeUntil`` observation: a pure value, called in the serializer's
/// delivery order (never concurrently), so it needs no lock and is tested with no threads.
///
/// One method per ``TakeUntilInput``, each returning the ``Action`` its sink performs. After the end
/// an event, the upstream's end, the end of registration or a second trigger event can still arrive
/// (queued in the serializer before both observations were disposed): they are ignored. The end of
/// registration when `registered` is not due cannot arrive (the upstream's registration ends once,
/// and its sender exists only when the observer has a `registered`): it stops with
/// `preconditionFailure`.
@usableFromInline
struct TakeUntilStateMachine<Event> {
  @usableFromInline
  enum State {
    /// Forwarding; `registeredDue` while the observer's `registered` has yet to be called.
    case forwarding(registeredDue: Bool)
    /// Ended: nothing more is delivered.
    case ended
  }

  /// What the sink must do after one input.
  @usableFromInline
  enum Action {
    /// Deliver the event.
    case deliver(Event)
    /// Call the observer's `registered`.
    case callRegistered
    /// End the observation (dispose both observations, then deliver the end); call `registered`
    /// first when `callingRegisteredFirst` (it is still due).
    case end(callingRegisteredFirst: Bool)
    /// Nothing: the observation has ended.
    case ignore
  }

  @usableFromInline var state: State

  @inlinable
  init(registeredDue: Bool) {
    state = .forwarding(registeredDue: registeredDue)
  }

  /// An upstream event (``TakeUntilInput/event(_:)``): delivered while forwarding.
  @inlinable
  mutating func received(_ event: Event) -> Action {
    switch state {
    case .forwarding: return .deliver(event)
    case .ended: return .ignore  // queued before the trigger's end disposed the upstream
    }
  }

  /// The upstream's registration ended (``TakeUntilInput/registered``): `registered` is due now.
  @inlinable
  mutating func registrationEnded() -> Action {
    switch state {
    case .forwarding(registeredDue: true):
      state = .forwarding(registeredDue: false)
      return .callRegistered
    case .forwarding(registeredDue: false):
      preconditionFailure(
        "TakeUntilStateMachine.registrationEnded: registration ended twice, or with no registered to call"
      )
    case .ended:
      return .ignore  // the end came first and called `registered`
    }
  }

  /// The upstream ended (``TakeUntilInput/upstreamEnded``): the end passes through. After the end
  /// (the trigger ended it first) it is ignored.
  @inlinable
  mutating func upstreamEnded() -> Action { end() }

  /// The trigger sent an event (``TakeUntilInput/triggered``): the end. After the end (a later
  /// trigger event, or the upstream ended first) it is ignored.
  @inlinable
  mutating func triggered() -> Action { end() }

  /// The end, from either input: `registered` first while it is due; ignored once ended.
  @inlinable
  mutating func end() -> Action {
    guard case .forwarding(let registeredDue) = state else { return .ignore }
    state = .ended
    return .end(callingRegisteredFirst: registeredDue)
  }
}

/// The single observer of a ``TakeUntil`` observation's inbox: it owns the state and calls the
/// observer. The inbox never calls it concurrently, so it needs no lock.
@usableFromInline
final class TakeUntilSink<Event>: InboxSink {
  @usableFromInline let output: InboxSinkOutput<Event, TakeUntilInput<Event>>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine: TakeUntilStateMachine<Event>

  @inlinable
  init(inbox: Inbox<TakeUntilInput<Event>>, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    registered = observer.registered
    machine = TakeUntilStateMachine(registeredDue: observer.registered != nil)
  }

  /// Asks the machine the method of `input`, then performs its action.
  @inlinable
  func receive(_ input: TakeUntilInput<Event>) {
    let action: TakeUntilStateMachine<Event>.Action
    switch input {
    case .event(let event): action = machine.received(event)
    case .registered: action = machine.registrationEnded()
    case .upstreamEnded: action = machine.upstreamEnded()
    case .triggered: action = machine.triggered()
    }
    switch action {
    case .deliver(let event): output.observer(event)
    case .callRegistered: callRegistered()
    case .end: end()  // calls `registered` first while it is still due (the sink's copy, as the machine's)
    case .ignore: break
    }
  }
}
