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

/// The state of one ``Append`` observation: a pure value, called in the serializer's delivery
/// order (never concurrently).
@usableFromInline
struct AppendStateMachine {
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

  /// What the caller must do with one input.
  @usableFromInline
  enum Action<Event> {
    /// Deliver the event.
    case deliver(Event)
    /// Call the observer's `registered`.
    case registered
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

  /// One input, in delivery order.
  @inlinable
  mutating func received<Event>(_ input: AppendInput<Event>) -> Action<Event> {
    switch (state, input) {
    case (.ended, _):
      return .ignore
    case (_, .event(let event)):
      return .deliver(event)
    case (.first(true), .registered):
      state = .first(registeredDue: false)
      return .registered
    case (_, .registered):
      return .ignore
    case (.first(let registeredDue), .firstEnded):
      state = .other
      return .observeOther(registered: registeredDue)
    case (_, .firstEnded):
      return .ignore
    case (.other, .otherEnded):
      state = .ended
      return .end
    case (_, .otherEnded):
      return .ignore
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
  @exclusivity(unchecked) @usableFromInline var machine: AppendStateMachine
  /// The producer observed after the receiver's end, kept alive until then (like an upstream).
  @exclusivity(unchecked) @usableFromInline var other: Other?

  @inlinable
  init(inbox: Inbox<AppendInput<Event>>, other: Other, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    registered = observer.registered
    machine = AppendStateMachine(registeredDue: observer.registered != nil)
    self.other = other
  }

  @inlinable
  func receive(_ input: AppendInput<Event>) {
    switch machine.received(input) {
    case .deliver(let event): output.observer(event)
    case .registered: callRegistered()
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
