/// The decisions of ``Debounce`` for one observation: each event replaces the pending one and
/// restarts the timer; when the timer of the latest event fires, that event is delivered. Pure: the
/// sink performs the actions after releasing its lock.
///
/// Each event has a generation number, carried by its timer, so a timer that fires after a newer
/// event arrived does nothing (even if cancelling it came too late).
///
/// `registered` placement: as in ``ThrottleStateMachine``: after the registration's pending event
/// is delivered, or right away when a live event replaces it.
/// The end (``TimedStateMachine/ended()``): the pending event is due at once, then the end.
/// Not thread-safe: the sink (`TimedSink`) keeps it in a `LockedState`.
@usableFromInline
struct DebounceStateMachine<Event: Sendable>: Sendable {
  @usableFromInline var generation: UInt64 = 0
  /// The event waiting for silence.
  @usableFromInline var pending: Event?
  /// The pending event's timer, to cancel when it is replaced or on dispose.
  @usableFromInline var timer: (any DisposableType)?
  /// `registered` waits for `pending`, a registration event, to be delivered.
  @usableFromInline var registeredAwaitsPending = false
  @usableFromInline var isDisposed = false

  @inlinable
  init() {}

  @usableFromInline
  struct ReceiveAction: Sendable {
    /// Schedule a timer for this generation (`nil`: disposed, do nothing).
    @usableFromInline var generation: UInt64?
    /// The replaced event's timer, to cancel.
    @usableFromInline var cancel: (any DisposableType)?
    /// The replaced event, to release outside the lock.
    @usableFromInline var released: Event?
    /// `registered` is due now (this event replaced the registration's pending one).
    @usableFromInline var registeredDue: Bool

    @inlinable
    init(generation: UInt64?, cancel: (any DisposableType)?, released: Event?, registeredDue: Bool) {
      self.generation = generation
      self.cancel = cancel
      self.released = released
      self.registeredDue = registeredDue
    }
  }

  @inlinable
  mutating func eventReceived(_ event: Event) -> ReceiveAction {
    guard !isDisposed else { return ReceiveAction(generation: nil, cancel: nil, released: nil, registeredDue: false) }
    generation &+= 1
    let action = ReceiveAction(
      generation: generation,
      cancel: timer,
      released: pending,
      registeredDue: registeredAwaitsPending
    )
    pending = event
    timer = nil
    registeredAwaitsPending = false
    return action
  }

  /// The upstream's registration ended. Returns whether `registered` is due now.
  @inlinable
  mutating func registrationEnded() -> Bool {
    guard !isDisposed else { return false }
    if pending != nil {
      registeredAwaitsPending = true
      return false
    }
    return true
  }

  /// Stores the cancel handle of the timer of `generation`; returns it when it must be disposed
  /// (disposed meanwhile, or a newer event arrived, or it already fired).
  @inlinable
  mutating func timerScheduled(_ disposable: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    guard !isDisposed, pending != nil, generation == self.generation else { return disposable }
    timer = disposable
    return nil
  }

  /// The timer of `generation` fired: returns the event to deliver (and whether `registered` is
  /// due right after it), or `nil` when that event was replaced.
  @inlinable
  mutating func timerFired(generation: UInt64) -> (event: Event, endsRegistration: Bool)? {
    guard !isDisposed, generation == self.generation, let event = pending else { return nil }
    defer {
      pending = nil
      timer = nil
      registeredAwaitsPending = false
    }
    return (event, registeredAwaitsPending)
  }

  /// Disposed: returns the timer to cancel and the pending event to release (outside the lock).
  @inlinable
  mutating func disposed() -> (timer: (any DisposableType)?, dropped: Event?) {
    defer {
      isDisposed = true
      timer = nil
      pending = nil
      registeredAwaitsPending = false
    }
    return (timer, pending)
  }
}

extension DebounceStateMachine: FlushingTimedStateMachine {
  @inlinable
  mutating func receive(_ event: Event) -> TimedReceiveAction<Event> {
    let action = eventReceived(event)
    return TimedReceiveAction(
      registeredDue: action.registeredDue,
      schedule: action.generation,
      cancel: action.cancel,
      released: action.released
    )
  }

  @inlinable
  mutating func fire(generation: UInt64) -> TimedFireAction<Event> {
    TimedFireAction(deliver: timerFired(generation: generation))
  }
}
