/// What ``TicksStateMachine/fire()`` decides: deliver `tick` (then the end, for a timer), or
/// nothing (disposed meanwhile).
@usableFromInline
enum TicksFireAction {
  case nothing
  case deliver(tick: Int, ends: Bool)
}

/// The decisions of ``Ticks`` for one observation: one timer at a time, each tick numbered, the
/// next one scheduled once the observer has returned from the previous one. Pure: `TicksSink`
/// performs the actions after releasing its lock.
/// Not thread-safe: the sink keeps it in a `LockedState`.
@usableFromInline
struct TicksStateMachine: Sendable {
  @usableFromInline
  enum State: Sendable {
    /// The timer of the next tick is scheduled; its cancel handle, once stored.
    case waiting(timer: (any DisposableType)?)
    /// A tick is being delivered (outside the lock); no timer.
    case delivering
    /// Disposed or ended: nothing more is decided.
    case over
  }

  @usableFromInline var state = State.waiting(timer: nil)
  /// The number of the next tick.
  @usableFromInline var nextTick = 0
  @usableFromInline let repeats: Bool

  @inlinable
  init(repeats: Bool) {
    self.repeats = repeats
  }

  /// Stores the cancel handle of the timer just scheduled for tick `tick`; returns it when it must
  /// be disposed (disposed meanwhile).
  ///
  /// The timer may have fired before its handle arrives here (a short period, a busy scheduling
  /// thread): its tick is then taken (`nextTick` is past it), and the handle is spent: dropped, never
  /// stored over the handle of the next tick's timer.
  @inlinable
  mutating func timerScheduled(_ handle: any DisposableType, forTick tick: Int) -> (any DisposableType)? {
    switch state {
    case .over:
      return handle
    case .waiting(nil) where nextTick == tick:
      state = .waiting(timer: handle)
      return nil
    case .waiting(.some) where nextTick == tick:
      preconditionFailure("TicksStateMachine.timerScheduled: a second timer for tick \(tick)")
    case .waiting, .delivering:
      return nil  // that timer has fired: its tick is taken
    }
  }

  /// The timer fired: its tick is due (then the end, for a timer).
  @inlinable
  mutating func fire() -> TicksFireAction {
    switch state {
    case .over:
      return .nothing
    case .waiting:
      let tick = nextTick
      nextTick &+= 1
      state = repeats ? .delivering : .over
      return .deliver(tick: tick, ends: !repeats)
    case .delivering:
      preconditionFailure("TicksStateMachine.fire: a timer fired while a tick is delivered")
    }
  }

  /// The observer returned from a tick: returns the number of the next tick to schedule, or `nil`
  /// (disposed meanwhile, or ended).
  @inlinable
  mutating func delivered() -> Int? {
    guard case .delivering = state else { return nil }
    state = .waiting(timer: nil)
    return nextTick
  }

  /// Disposed: the timer to cancel.
  @inlinable
  mutating func disposed() -> (any DisposableType)? {
    defer { state = .over }
    guard case .waiting(let timer) = state else { return nil }
    return timer
  }
}

/// One observation of ``Ticks``: a ``TicksStateMachine`` and the observer under one lock, the
/// timer on the scheduler. Returned as the observation's disposable.
/// - Note: thread-safe.
@usableFromInline
final class TicksSink<S: Scheduler>: DisposableType {
  @usableFromInline let scheduler: S
  @usableFromInline let period: Double
  /// The scheduler's time at `observe`, when it tells it (``ClockedScheduler``): tick n is due at
  /// start + (n + 1) × period.
  @usableFromInline let start: Double?
  /// The machine and the observer (`nil` once over, so that it is released).
  @usableFromInline let state: LockedState<(machine: TicksStateMachine, observer: EventObserver<Int>?)>

  @inlinable
  init(scheduler: S, period: Double, repeats: Bool, observer: EventObserver<Int>) {
    self.scheduler = scheduler
    self.period = period
    self.start = (scheduler as? any ClockedScheduler)?.now
    self.state = LockedState((TicksStateMachine(repeats: repeats), observer))
  }

  @inlinable
  var isDisposed: Bool { state.withLock { $0.observer == nil } }

  /// The delay until tick `tick` is due: from the start when the scheduler tells its time (no
  /// drift), else one period.
  @inlinable
  func delay(untilTick tick: Int) -> Double {
    guard let start, let clock = scheduler as? any ClockedScheduler else { return period }
    return Swift.max(0, (start + Double(tick + 1) * period) - clock.now)
  }

  /// Schedules the timer of the first tick (from `observe`) or of the next one.
  @usableFromInline
  func scheduleTick(_ tick: Int = 0) {
    // The timer holds this sink until it fires or is cancelled by dispose(), which breaks the cycle.
    let handle = scheduler.schedule(after: delay(untilTick: tick)) { [self] in self.fired() }
    let cancel = state.withLock { $0.machine.timerScheduled(handle, forTick: tick) }
    cancel?.dispose()
  }

  /// Runs on the scheduler: the tick is delivered outside the lock (user code), then the next
  /// timer is scheduled.
  @usableFromInline
  func fired() {
    let (action, observer) = state.withLock { state -> (TicksFireAction, EventObserver<Int>?) in
      let action = state.machine.fire()
      guard case .deliver(_, let ends) = action else { return (action, nil) }
      defer { if ends { state.observer = nil } }
      return (action, state.observer)
    }
    guard case .deliver(let tick, let ends) = action, let observer else { return }
    observer.event(tick)
    if ends {
      observer.finished?()
      return
    }
    if let next = state.withLock({ $0.machine.delivered() }) { scheduleTick(next) }
  }

  @usableFromInline
  func dispose() {
    let (timer, observer) = state.withLock { state in
      defer { state.observer = nil }
      return (state.machine.disposed(), state.observer)
    }
    timer?.dispose()
    _ = observer  // released here, outside the lock
  }
}
