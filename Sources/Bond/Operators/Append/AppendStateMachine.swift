/// What reaches the serializer of an ``Append`` observation.
@usableFromInline
enum AppendInput<Event> {
  /// An event of the receiver, or of `other` once observed.
  case event(Event)
  /// The receiver's registration has ended.
  case registered
  /// The receiver has ended.
  case firstEnded
  /// `other` has ended.
  case otherEnded
}

/// The decisions of one ``Append`` observation: a pure value, called in the serializer's delivery
/// order (never concurrently), one method per ``AppendInput``.
///
/// Impossible, so a `preconditionFailure`: `other`'s end before it is observed, the receiver's end
/// twice, and a registration that is not due. An event or the receiver's registration after the
/// receiver's end (it ended during its registration) can happen, and is handled.
@usableFromInline
struct AppendStateMachine<Event> {
  @usableFromInline
  enum State {
    /// Forwarding the receiver; `registeredDue` while the observer's `registered` has yet to be
    /// called.
    case first(registeredDue: Bool)
    /// Forwarding `other`.
    case other
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
    /// Observe `other` (it is hot: from now on); call `registered` first when `true` (still due).
    case observeOther(registered: Bool)
    /// End the observation.
    case end
    /// Nothing.
    case ignore
  }

  @usableFromInline var state: State

  @inlinable
  init(registeredDue: Bool) {
    state = .first(registeredDue: registeredDue)
  }

  /// An event of the receiver, or of `other` (``AppendInput/event(_:)``).
  @inlinable
  mutating func received(_ event: Event) -> Action {
    switch state {
    case .first, .other: return .deliver(event)
    case .ended: return .ignore  // queued before the end disposed the observations
    }
  }

  /// The receiver's registration ended (``AppendInput/registered``).
  @inlinable
  mutating func registrationEnded() -> Action {
    switch state {
    case .first(registeredDue: true):
      state = .first(registeredDue: false)
      return .callRegistered
    case .first(registeredDue: false):
      preconditionFailure(
        "AppendStateMachine.registrationEnded: registration ended twice, or with no registered to call"
      )
    case .other, .ended:
      return .ignore  // the receiver ended during its registration: `registered` came with its end
    }
  }

  /// The receiver ended (``AppendInput/firstEnded``): observe `other`.
  @inlinable
  mutating func firstEnded() -> Action {
    guard case .first(let registeredDue) = state else {
      preconditionFailure("AppendStateMachine.firstEnded: the receiver ended twice")
    }
    state = .other
    return .observeOther(registered: registeredDue)
  }

  /// `other` ended (``AppendInput/otherEnded``): the end.
  @inlinable
  mutating func otherEnded() -> Action {
    switch state {
    case .other:
      state = .ended
      return .end
    case .first:
      preconditionFailure("AppendStateMachine.otherEnded: other ended before it was observed")
    case .ended:
      preconditionFailure("AppendStateMachine.otherEnded: other ended twice")
    }
  }
}

/// The single observer of an ``Append`` observation's inbox: it owns the state, observes `other`
/// when the receiver ends and calls the observer. The inbox never calls it concurrently, so it
/// needs no lock.
@usableFromInline
final class AppendSink<Other: EventProducerType>: InboxSink {
  @usableFromInline typealias Event = Other.Event
  @usableFromInline let output: InboxSinkOutput<Event, AppendInput<Event>>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine: AppendStateMachine<Event>
  /// The producer observed after the receiver's end, kept alive until then (like an upstream).
  @exclusivity(unchecked) @usableFromInline var other: Other?

  @inlinable
  init(inbox: Inbox<AppendInput<Event>>, other: Other, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    registered = observer.registered
    machine = AppendStateMachine(registeredDue: observer.registered != nil)
    self.other = other
  }

  /// Asks the machine the method of `input`, then performs its action.
  @inlinable
  func receive(_ input: AppendInput<Event>) {
    let action =
      switch input {
      case .event(let event): machine.received(event)
      case .registered: machine.registrationEnded()
      case .firstEnded: machine.firstEnded()
      case .otherEnded: machine.otherEnded()
      }
    switch action {
    case .deliver(let event): output.observer(event)
    case .callRegistered: callRegistered()
    case .observeOther(let registeredDue):
      if registeredDue { callRegistered() }
      observeOther()
    case .end: end()
    case .ignore: break
    }
  }

  /// Observes `other` into the inbox; its replay is queued behind this delivery.
  @inlinable
  func observeOther() {
    guard let other else { return }
    self.other = nil
    let inbox = output.inbox
    if inbox.disposables.isDisposed { return }
    let serializer = inbox.serializer
    inbox.disposables.add(
      other.observe(
        with: EventObserver(
          { serializer.next(.event($0)) },
          finished: inbox.sender(.otherEnded),
          registered: nil,
          pressure: inbox.pressure
        )
      )
    )
  }
}
