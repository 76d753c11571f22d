/// The decisions of ``Debounce`` for one observation: each event replaces the waiting one and
/// restarts the timer; when the timer of the latest event fires, that event is delivered. Pure:
/// ``TimedSink`` performs the actions after releasing its lock.
///
/// Each event has a generation number, carried by its timer, so a timer that fires after a newer
/// event arrived does nothing (even if cancelling it came too late).
///
/// `registered` placement: as in ``ThrottleStateMachine``: after the registration's waiting event
/// is delivered, or right away when a live event replaces it.
/// The end (``TimedStateMachine/ended()``): the waiting event is due at once, then the end.
/// Not thread-safe: the sink keeps it in a `LockedState`.
@usableFromInline
struct DebounceStateMachine<Event: Sendable>: FlushingTimedStateMachine {
  @usableFromInline typealias Input = Event

  @usableFromInline
  enum State: Sendable {
    /// No event waits.
    case idle
    /// An event waits for silence; its timer's cancel handle, once stored.
    case waiting(PendingEvent<Event>, timer: (any DisposableType)?)
    /// Disposed or ended: nothing more is decided.
    case over
  }

  @usableFromInline var state = State.idle
  /// The generation of the latest event's timer.
  @usableFromInline var generation: UInt64 = 0

  @inlinable
  init() {}

  /// An event replaces the waiting one (released outside the lock, its timer cancelled) and
  /// schedules a timer of its own.
  @inlinable
  mutating func receive(_ event: Event) -> TimedReceiveAction<Event> {
    switch state {
    case .over:
      return TimedReceiveAction()
    case .idle:
      generation &+= 1
      state = .waiting(PendingEvent(event), timer: nil)
      return TimedReceiveAction(schedule: generation)
    case .waiting(let replaced, let timer):
      generation &+= 1
      state = .waiting(PendingEvent(event), timer: nil)
      return TimedReceiveAction(
        registeredDue: replaced.endsRegistration,
        schedule: generation,
        cancel: timer,
        released: replaced.event
      )
    }
  }

  /// `registered` waits for the waiting event, if any; else it is due now.
  @inlinable
  mutating func registrationEnded() -> Bool {
    switch state {
    case .over:
      return false
    case .idle:
      return true
    case .waiting(var pending, let timer):
      pending.endsRegistration = true
      state = .waiting(pending, timer: timer)
      return false
    }
  }

  @inlinable
  var registeredAwaitsPending: Bool {
    guard case .waiting(let pending, _) = state else { return false }
    return pending.endsRegistration
  }

  /// Stores the cancel handle of the timer of `generation`; returns it when it must be disposed
  /// (disposed or ended meanwhile, a newer event arrived, or it already fired).
  @inlinable
  mutating func timerScheduled(_ handle: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    guard case .waiting(let pending, let timer) = state, generation == self.generation else { return handle }
    if timer != nil { preconditionFailure("DebounceStateMachine.timerScheduled: a second timer for one event") }
    state = .waiting(pending, timer: handle)
    return nil
  }

  /// The timer of `generation` fired: the waiting event is delivered, unless it was replaced.
  @inlinable
  mutating func fire(generation: UInt64) -> TimedFireAction<Event> {
    switch state {
    case .over:
      return TimedFireAction()
    case .idle:
      // The event of this generation was delivered by this timer: no timer fires twice.
      if generation == self.generation {
        preconditionFailure("DebounceStateMachine.fire: the timer of the current event fired twice")
      }
      return TimedFireAction()
    case .waiting(let pending, _):
      guard generation == self.generation else { return TimedFireAction() }
      state = .idle
      return TimedFireAction(deliver: (pending.event, pending.endsRegistration))
    }
  }

  /// Disposed (or ended, see ``FlushingTimedStateMachine``): the timer to cancel and the waiting
  /// event to release (outside the lock).
  @inlinable
  mutating func disposed() -> (timer: (any DisposableType)?, dropped: Event?) {
    defer { state = .over }
    guard case .waiting(let pending, let timer) = state else { return (nil, nil) }
    return (timer, pending.event)
  }
}
