/// The decisions of ``Timeout`` for one observation: a timer armed at the start and re-armed by
/// each event (a new generation; the previous timer is cancelled); when the timer of the latest
/// generation fires, `last` (if any) is due, then the end. Pure: ``TimedSink`` performs the
/// actions after releasing its lock.
///
/// Events pass through at once (no event is held). `registered` is due as soon as the upstream's
/// registration ends. The upstream's end (``ended()``) cancels the timer and ends at once.
/// Not thread-safe: the sink keeps it in a `LockedState`.
@usableFromInline
struct TimeoutStateMachine<Event: Sendable>: TimedStateMachine {
  @usableFromInline typealias Input = Event

  @usableFromInline
  enum State: Sendable {
    /// Waiting for an event before the timer of the current generation fires; its cancel handle,
    /// once stored.
    case waiting(timer: (any DisposableType)?)
    /// Timed out, ended or disposed: nothing more is decided.
    case over
  }

  @usableFromInline var state = State.waiting(timer: nil)
  /// The generation of the latest timer (1: the one armed at the start).
  @usableFromInline var generation: UInt64 = 1
  /// Sent before the end when the timer fires.
  @usableFromInline let last: Event?

  @inlinable
  init(last: Event?) {
    self.last = last
  }

  /// The first wait starts with the observation.
  @inlinable
  var timerAtStart: UInt64? { 1 }

  /// An event is delivered at once and re-arms the timer (the previous one is cancelled).
  @inlinable
  mutating func receive(_ event: Event) -> TimedReceiveAction<Event> {
    guard case .waiting(let timer) = state else { return TimedReceiveAction() }
    generation &+= 1
    state = .waiting(timer: nil)
    return TimedReceiveAction(deliver: event, schedule: generation, cancel: timer)
  }

  /// Nothing is held: `registered` is due now (unless over).
  @inlinable
  mutating func registrationEnded() -> Bool {
    guard case .waiting = state else { return false }
    return true
  }

  /// Stores the cancel handle of the timer of `generation`; returns it when it must be disposed
  /// (over meanwhile, or a newer event re-armed the timer).
  @inlinable
  mutating func timerScheduled(_ handle: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    guard case .waiting(let timer) = state, generation == self.generation else { return handle }
    if timer != nil { preconditionFailure("Internal inconsistency") }  // one timer per generation
    state = .waiting(timer: handle)
    return nil
  }

  /// The timer of `generation` fired: unless an event re-armed it since, `last` (if any) is due,
  /// then the end.
  @inlinable
  mutating func fire(generation: UInt64) -> TimedFireAction<Event> {
    guard case .waiting = state, generation == self.generation else { return TimedFireAction() }
    state = .over
    return TimedFireAction(deliver: last.map { ($0, false) }, ends: true)
  }

  /// The upstream ended first: the timer is cancelled, the end is due now (not when the timeout
  /// already handed its end over, nor once disposed).
  @inlinable
  mutating func ended() -> TimedEndAction<Event> {
    guard case .waiting(let timer) = state else { return TimedEndAction(endsNow: false) }
    state = .over
    return TimedEndAction(cancel: timer, endsNow: true)
  }

  /// Disposed (or ended): the timer to cancel; nothing is held.
  @inlinable
  mutating func disposed() -> (timer: (any DisposableType)?, dropped: Void) {
    defer { state = .over }
    guard case .waiting(let timer) = state else { return (nil, ()) }
    return (timer, ())
  }
}
