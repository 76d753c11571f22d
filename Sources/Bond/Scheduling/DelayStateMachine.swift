/// The decisions of ``Delay`` for one observation: the events waiting for their time, in arrival
/// order, and where `registered` and the end go. Pure: the sink hands what it returns to the
/// delivery inside the same critical section, so the delivery sees the decisions in order.
///
/// Each event schedules one timer; each timer that fires releases the oldest waiting event, so the
/// events leave in the order they arrived even if two timers fire out of order. The machine keeps
/// the cancel handle of every timer that has not fired, so that dispose cancels them all: a timer
/// holds the sink, and a forgotten one would keep the sink and its delivery alive until its deadline
/// (guarantee 6).
/// `registered` is due right after the last event received before the upstream's registration
/// ended (at once if there was none); the end right after the last event.
/// Not thread-safe: the sink keeps it in a `LockedState`.
@usableFromInline
struct DelayStateMachine<Event: Sendable>: TimedStateMachine {
  @usableFromInline typealias Input = Event

  /// Where the observer's `registered` stands.
  @usableFromInline
  enum Registration: Sendable {
    /// The upstream's registration has not ended yet.
    case open
    /// Due right after the release of this many events.
    case dueAfter(Int)
    /// Called, or handed to the delivery.
    case done
  }

  @usableFromInline
  enum State: Sendable {
    /// Events are received and released.
    case running(Registration)
    /// The upstream ended: the end is due after the last waiting event; nothing more is received.
    case ending(Registration)
    /// Disposed or ended: nothing more is decided.
    case over
  }

  @usableFromInline var state = State.running(.open)
  /// Waiting events; `waiting[head...]` are still to be released.
  @usableFromInline var waiting: [Event] = []
  @usableFromInline var head = 0
  /// Events received so far, and released so far.
  @usableFromInline var received = 0
  @usableFromInline var released = 0
  /// The generation of the last timer scheduled: one per event, so that each handle is found again.
  @usableFromInline var generation: UInt64 = 0
  /// The cancel handles of the timers that have not fired, by generation.
  @usableFromInline var timers: [UInt64: any DisposableType] = [:]
  /// The timers that fired before their handle was stored (the scheduler ran the timer on another
  /// thread before `schedule` returned): their handle, when it comes, is not kept. Rarely non-empty.
  @usableFromInline var firedUnstored: Set<UInt64> = []

  @inlinable
  init() {}

  /// An upstream event: it waits; its timer (a new generation) is scheduled.
  @inlinable
  mutating func receive(_ input: Event) -> TimedReceiveAction<Event> {
    guard case .running = state else { return TimedReceiveAction() }
    waiting.append(input)
    received += 1
    generation &+= 1
    return TimedReceiveAction(schedule: generation)
  }

  /// The upstream's registration ended: returns whether `registered` is due now.
  @inlinable
  mutating func registrationEnded() -> Bool {
    let registration: Registration
    switch state {
    case .running(.open): registration = released == received ? .done : .dueAfter(received)
    case .ending(.open): registration = .dueAfter(received)  // events wait, else it would be over
    case .running, .ending, .over: return false
    }
    if case .ending = state { state = .ending(registration) } else { state = .running(registration) }
    if case .done = registration { return true }
    return false
  }

  /// Keeps the cancel handle of the timer of `generation` until it fires; returns it (to dispose,
  /// a no-op on a spent timer) when that timer already fired or the observation is over.
  @inlinable
  mutating func timerScheduled(_ disposable: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    if case .over = state { return disposable }
    if firedUnstored.remove(generation) != nil { return disposable }
    timers[generation] = disposable
    return nil
  }

  /// A timer fired: the oldest waiting event, whether `registered` follows it, whether the end
  /// follows it.
  @inlinable
  mutating func fire(generation: UInt64) -> TimedFireAction<Event> {
    let registration: Registration
    let isEnding: Bool
    switch state {
    case .over: return TimedFireAction()
    case .running(let current): (registration, isEnding) = (current, false)
    case .ending(let current): (registration, isEnding) = (current, true)
    }
    if timers.removeValue(forKey: generation) == nil { firedUnstored.insert(generation) }
    guard head < waiting.count else {
      preconditionFailure("DelayStateMachine.fire: a timer fired with no event waiting")
    }
    let event = waiting[head]
    head += 1
    released += 1
    if head == waiting.count {
      waiting.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 1024, head * 2 >= waiting.count {
      waiting.removeFirst(head)
      head = 0
    }
    var endsRegistration = false
    var next = registration
    if case .dueAfter(let after) = registration, after == released {
      endsRegistration = true
      next = .done
    }
    let ends = isEnding && released == received
    state = ends ? .over : isEnding ? .ending(next) : .running(next)
    return TimedFireAction(deliver: (event, endsRegistration), ends: ends)
  }

  /// The upstream ended: the end is due now when nothing is waiting, else after the last waiting
  /// event (``fire(generation:)``). Nothing is flushed early: each event keeps its delay.
  @inlinable
  mutating func ended() -> TimedEndAction<Event> {
    guard case .running(let registration) = state else { return TimedEndAction(endsNow: false) }
    if released == received {
      state = .over
      return TimedEndAction(endsNow: true)
    }
    state = .ending(registration)
    return TimedEndAction(endsNow: false)
  }

  /// Disposed: the timers not fired yet (one disposable cancelling them all, to dispose outside the
  /// lock) and the waiting events, released outside the lock.
  @inlinable
  mutating func disposed() -> (timer: (any DisposableType)?, dropped: [Event]) {
    state = .over
    let dropped = waiting
    waiting = []
    head = 0
    let pending = Array(timers.values)
    timers = [:]
    firedUnstored = []
    // One allocation, on the dispose path only; none when no timer is pending.
    let timer: (any DisposableType)? = pending.count <= 1 ? pending.first : CompositeDisposable(pending)
    return (timer, dropped)
  }
}
