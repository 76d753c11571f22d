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

/// The state of one ``TakeUntil`` observation: a pure value, called in the serializer's delivery
/// order (never concurrently).
@usableFromInline
struct TakeUntilStateMachine {
  @usableFromInline
  enum State {
    /// Forwarding; `registeredDue` while the observer's `registered` has yet to be called.
    case forwarding(registeredDue: Bool)
    /// Ended: nothing more is delivered.
    case ended
  }

  /// What the caller must do with one input.
  @usableFromInline
  enum Action<Event> {
    /// Deliver the event.
    case deliver(Event)
    /// Call the observer's `registered`.
    case registered
    /// End the observation; call `registered` first when `true` (still due).
    case end(registered: Bool)
    /// Nothing.
    case ignore
  }

  @usableFromInline var state: State

  @inlinable
  init(registeredDue: Bool) {
    state = .forwarding(registeredDue: registeredDue)
  }

  /// One input, in delivery order.
  @inlinable
  mutating func received<Event>(_ input: TakeUntilInput<Event>) -> Action<Event> {
    guard case .forwarding(let registeredDue) = state else { return .ignore }
    switch input {
    case .event(let event):
      return .deliver(event)
    case .registered:
      guard registeredDue else { return .ignore }
      state = .forwarding(registeredDue: false)
      return .registered
    case .upstreamEnded, .triggered:
      state = .ended
      return .end(registered: registeredDue)
    }
  }
}

/// The single observer of a ``TakeUntil`` observation's inbox: it owns the state and calls the
/// observer. The inbox never calls it concurrently, so it needs no lock.
@usableFromInline
final class TakeUntilSink<Event>: InboxSink {
  @usableFromInline let output: InboxSinkOutput<Event, TakeUntilInput<Event>>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine: TakeUntilStateMachine

  @inlinable
  init(inbox: Inbox<TakeUntilInput<Event>>, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    registered = observer.registered
    machine = TakeUntilStateMachine(registeredDue: observer.registered != nil)
  }

  @inlinable
  func receive(_ input: TakeUntilInput<Event>) {
    switch machine.received(input) {
    case .deliver(let event): output.observer(event)
    case .registered: callRegistered()
    case .end: end()  // `registered` first, if still due
    case .ignore: break
    }
  }
}
