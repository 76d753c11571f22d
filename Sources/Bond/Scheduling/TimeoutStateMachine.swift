/// The decisions of ``Timeout`` for one observation: a timer armed at the start and re-armed by
/// each event (a new generation; the previous timer is cancelled); when the timer of the latest
/// generation fires, `last` (if any) is due, then the end. Pure: ``TimedSink`` performs the
/// actions after releasing its lock.
///
/// On a ``ClockedScheduler`` (``readsClock``) an event does not re-arm the timer: it moves the
/// deadline (its time plus `seconds`), and the timer, when it fires before that deadline, is
/// scheduled again for the rest. So an event costs a clock read under the lock, as a `debounce`
/// event costs its cancel and `schedule(after:)` instead, and the end comes at the same time.
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
  /// The wait after each event, in seconds.
  @usableFromInline let seconds: Double
  /// On a clocked scheduler: the latest event's time plus `seconds` (`nil` before the first event):
  /// the timer that fires before it is scheduled again for the rest.
  @usableFromInline var deadline: Double?

  @inlinable
  init(last: Event?, seconds: Double) {
    self.last = last
    self.seconds = seconds
  }

  /// An event moves the deadline rather than re-arming the timer.
  @inlinable
  static var readsClock: Bool { true }

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

  /// On a clocked scheduler: an event is delivered at once and moves the deadline to `now` plus
  /// `seconds` (never back: the upstream's events may come from several threads).
  @inlinable
  mutating func receive(_ event: Event, now: Double) -> TimedReceiveAction<Event> {
    guard case .waiting = state else { return TimedReceiveAction() }
    let moved = now + seconds
    if let deadline, deadline >= moved { return TimedReceiveAction(deliver: event) }
    deadline = moved
    return TimedReceiveAction(deliver: event)
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
    if timer != nil { preconditionFailure("TimeoutStateMachine.timerScheduled: a second timer for one generation") }
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

  /// On a clocked scheduler: the timer of `generation` fired at `now`; before the deadline it is
  /// scheduled again for the rest (a new generation), else as ``fire(generation:)``.
  @inlinable
  mutating func fire(generation: UInt64, now: Double) -> TimedFireAction<Event> {
    guard case .waiting = state, generation == self.generation else { return TimedFireAction() }
    guard let deadline, deadline > now else { return fire(generation: generation) }
    self.generation &+= 1
    state = .waiting(timer: nil)
    return TimedFireAction(schedule: self.generation, delay: deadline - now)
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
