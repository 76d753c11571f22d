/// The decisions of a timed operator (``Throttle``, ``Debounce``, ``TimedCollect``, ``Delay``) for
/// one observation, as ``TimedSink`` performs them: a pure value, kept in the sink's `LockedState`.
///
/// Each timer carries a generation number, so a timer that fires late (its window over, its event
/// replaced) does nothing. After ``disposed()`` or the end nothing more is decided.
@usableFromInline
protocol TimedStateMachine<Input, Event>: Sendable {
  /// What the upstream sends.
  associatedtype Input: Sendable
  /// What the observer receives (the input itself, or an array of inputs).
  associatedtype Event: Sendable
  /// What ``disposed()`` hands back to be released outside the lock.
  associatedtype Dropped

  /// The generation of a timer to schedule as the observation starts (``Timeout``'s first wait), or
  /// `nil` (the default): the other operators arm their timers on events.
  var timerAtStart: UInt64? { get }

  /// An upstream event arrived.
  mutating func receive(_ input: Input) -> TimedReceiveAction<Event>

  /// The upstream's registration ended. Returns whether `registered` is due now.
  mutating func registrationEnded() -> Bool

  /// Stores the cancel handle of the timer of `generation`; returns it when it must be disposed
  /// (disposed or ended meanwhile, or that timer is already stale).
  mutating func timerScheduled(_ disposable: any DisposableType, generation: UInt64) -> (any DisposableType)?

  /// The timer of `generation` fired.
  mutating func fire(generation: UInt64) -> TimedFireAction<Event>

  /// The upstream ended: the event due at once, if any (and whether `registered` is due right after
  /// it), the timer to cancel, and whether the end is due now (else a later ``fire(generation:)``
  /// says so).
  mutating func ended() -> TimedEndAction<Event>

  /// Disposed: returns the timer to cancel and what is dropped (released outside the lock).
  mutating func disposed() -> (timer: (any DisposableType)?, dropped: Dropped)

  /// Whether the machine reads the scheduler's clock (``Timeout``: an event moves a deadline, read
  /// when the timer fires, instead of re-arming a timer); `false` (the default) compiles the clock
  /// reads out of ``TimedSink``. Only on a ``ClockedScheduler``: on another, ``TimedSink`` calls
  /// the methods without a time.
  static var readsClock: Bool { get }

  /// ``receive(_:)`` on a ``ClockedScheduler`` when ``readsClock``: `now` is the scheduler's time.
  mutating func receive(_ input: Input, now: Double) -> TimedReceiveAction<Event>

  /// ``fire(generation:)`` on a ``ClockedScheduler`` when ``readsClock``: `now` is the scheduler's
  /// time.
  mutating func fire(generation: UInt64, now: Double) -> TimedFireAction<Event>

  /// Whether the machine ever answers an event without its lock (``latestSlotUse``); `false` (the
  /// default) compiles the slot's checks out of ``TimedSink``.
  static var usesLatestSlot: Bool { get }

  /// What ``TimedSink`` may decide for an event without the lock, in this state (see
  /// ``LatestSlotUse``).
  var latestSlotUse: LatestSlotUse { get }

  /// Moves the pending event out, into the sink's slot (when ``latestSlotUse`` is `keepLatest`).
  mutating func takeLatestForSlot() -> Input?

  /// Moves the slot's event back in, before any other decision; returns it instead when the machine
  /// is over (disposed meanwhile), to be released outside the lock.
  mutating func restoreLatestFromSlot(_ latest: Input?) -> Input?
}

/// What ``TimedSink`` decides for an event with no lock (``Throttle`` while a window is open): the
/// only decisions of ``TimedStateMachine/receive(_:)`` that touch nothing but the pending event.
@usableFromInline
enum LatestSlotUse: UInt8, Sendable {
  /// Every event goes through the lock and the machine.
  case none
  /// Every event is dropped (a `leading` window is open).
  case dropEvents
  /// Every event replaces the pending one, kept in the sink's slot (a `latest` window is open).
  case keepLatest
}

extension TimedStateMachine {
  /// No timer until the first event.
  @inlinable
  var timerAtStart: UInt64? { nil }

  /// No clock: each event that moves the end of a wait re-arms a timer.
  @inlinable
  static var readsClock: Bool { false }

  @inlinable
  mutating func receive(_ input: Input, now: Double) -> TimedReceiveAction<Event> { receive(input) }

  @inlinable
  mutating func fire(generation: UInt64, now: Double) -> TimedFireAction<Event> { fire(generation: generation) }

  /// Every event goes through the lock.
  @inlinable
  static var usesLatestSlot: Bool { false }

  @inlinable
  var latestSlotUse: LatestSlotUse { .none }

  @inlinable
  mutating func takeLatestForSlot() -> Input? { nil }

  @inlinable
  mutating func restoreLatestFromSlot(_ latest: Input?) -> Input? { latest }
}

/// A timed operator that keeps at most one pending event and one timer, and delivers the pending
/// event at once when the upstream ends (``Throttle``, ``Debounce``, ``TimedCollect``).
///
/// An impossible transition (a timer of the current generation scheduled or fired twice) stops
/// with `preconditionFailure("<Machine>.<method>: <what was impossible>")`.
@usableFromInline
protocol FlushingTimedStateMachine<Input, Event>: TimedStateMachine where Dropped == Event? {
  /// `registered` waits for the pending event, a registration event, to be delivered.
  var registeredAwaitsPending: Bool { get }
}

extension FlushingTimedStateMachine {
  /// The pending event is due now (not at its timer), then the end; nothing more is decided
  /// afterwards.
  @inlinable
  mutating func ended() -> TimedEndAction<Event> {
    let endsRegistration = registeredAwaitsPending
    let (timer, pending) = disposed()
    return TimedEndAction(flush: pending.map { ($0, endsRegistration) }, cancel: timer, endsNow: true)
  }
}

/// What ``TimedSink`` does when the upstream ends: cancel, hand `flush` to the delivery, then the
/// end when `endsNow`.
@usableFromInline
struct TimedEndAction<Event> {
  @usableFromInline var flush: (event: Event, endsRegistration: Bool)?
  @usableFromInline var cancel: (any DisposableType)?
  @usableFromInline var endsNow: Bool

  @inlinable
  init(flush: (event: Event, endsRegistration: Bool)? = nil, cancel: (any DisposableType)? = nil, endsNow: Bool) {
    (self.flush, self.cancel, self.endsNow) = (flush, cancel, endsNow)
  }
}

/// What ``TimedSink`` does after an upstream event, in this order: cancel, hand `deliver` (or the
/// due registration end) to the delivery, schedule the timer of `schedule`.
@usableFromInline
struct TimedReceiveAction<Event> {
  /// Deliver this event now.
  @usableFromInline var deliver: Event?
  /// `registered` is due now (a live event replaced the registration's pending one).
  @usableFromInline var registeredDue: Bool
  /// Schedule the timer of this generation.
  @usableFromInline var schedule: UInt64?
  /// A timer to cancel.
  @usableFromInline var cancel: (any DisposableType)?
  /// A replaced event, released outside the lock.
  @usableFromInline var released: Event?

  @inlinable
  init(
    deliver: Event? = nil,
    registeredDue: Bool = false,
    schedule: UInt64? = nil,
    cancel: (any DisposableType)? = nil,
    released: Event? = nil
  ) {
    (self.deliver, self.registeredDue, self.schedule) = (deliver, registeredDue, schedule)
    (self.cancel, self.released) = (cancel, released)
  }
}

/// What ``TimedSink`` does when a timer fires: schedule the timer of `schedule` (after `delay`, or
/// the sink's interval when `nil`), deliver `deliver` (with `endsRegistration`, `registered` is due
/// right after it), then the end when `ends`.
@usableFromInline
struct TimedFireAction<Event> {
  @usableFromInline var deliver: (event: Event, endsRegistration: Bool)?
  @usableFromInline var schedule: UInt64?
  @usableFromInline var delay: Double?
  @usableFromInline var ends: Bool

  @inlinable
  init(
    deliver: (event: Event, endsRegistration: Bool)? = nil,
    schedule: UInt64? = nil,
    delay: Double? = nil,
    ends: Bool = false
  ) {
    (self.deliver, self.schedule, self.delay, self.ends) = (deliver, schedule, delay, ends)
  }
}

/// The event a timed operator holds until its timer fires (``Throttle``'s latest, ``Debounce``'s
/// waiting one).
@usableFromInline
struct PendingEvent<Event: Sendable>: Sendable {
  @usableFromInline var event: Event
  /// It is the last event of the upstream's registration (its replay): `registered` is due right
  /// after it is delivered, or at once if a live event replaces it.
  @usableFromInline var endsRegistration = false

  @inlinable
  init(_ event: Event) {
    self.event = event
  }
}
