import Bond
import Synchronization

/// A ``Scheduler`` on virtual time, for tests of time-based code: nothing runs until the test
/// moves time on.
///
/// Time starts at 0. ``advance(by:)`` runs, in time order, every action due at or before the new
/// time, with ``now`` set to each action's due time while it runs; actions due at the same time run
/// in the order they were scheduled; an action scheduled while the scheduler runs that falls due
/// within the window runs too. ``run()`` runs everything scheduled, moving time on.
/// `schedule(_:)` means "due now": the action runs at the next `advance(by:)` (even by 0) or `run()`.
///
/// ```swift
/// let clock = TestScheduler()
/// let taps = EventProducer<Int>()
/// taps.throttle(for: .seconds(1), scheduler: clock).observe { print($0, "at", clock.now) }
/// taps.next(1)                       // t = 0: opens a one-second window
/// clock.advance(by: .milliseconds(500))
/// taps.next(2)                       // t = 0.5: the latest of the window
/// clock.advance(by: .milliseconds(600))  // prints "2 at 1.0", then time is 1.1
/// ```
///
/// - Note: thread-safe: actions may be scheduled and cancelled from any thread. Actions run on the
///   thread that calls ``advance(by:)`` or ``run()``, one at a time, never while a lock is held (an
///   action may schedule, cancel, or read ``now``).
public final class TestScheduler: ClockedScheduler {
  private let state = LockedState(State())

  /// Creates a scheduler whose virtual time is 0.
  public init() {}

  /// The current virtual time in seconds: while an action runs, the time it was due.
  public var now: Double {
    state.withLock { $0.now }
  }

  /// The number of actions scheduled that have neither run nor been cancelled.
  ///
  /// Handy to check that an operator leaves nothing behind (for example after a dispose).
  public var pendingActionCount: Int {
    state.withLock { $0.actions.count }
  }

  /// Schedules `action` due now: it runs at the next ``advance(by:)`` or ``run()``, after the
  /// actions already due at this time.
  public func schedule(_ action: @escaping @Sendable () -> Void) {
    _ = state.withLock { $0.insert(action, after: 0) }
  }

  /// Schedules `action` due at ``now`` + `seconds`.
  ///
  /// - Returns: a disposable that cancels the action (and releases it) if it has not run yet.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @discardableResult
  public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any DisposableType {
    precondition(seconds >= 0, "TestScheduler.schedule(after:_:): seconds must be 0 or more, got \(seconds)")
    let id = state.withLock { $0.insert(action, after: seconds) }
    return ScheduledAction(scheduler: self, id: id)
  }

  /// Moves time on by `seconds`, running every action due at or before the new time, in time order.
  ///
  /// While an action runs, ``now`` is its due time; when this returns, ``now`` is the old time plus
  /// `seconds`.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  public func advance(by seconds: Double) {
    precondition(seconds >= 0, "TestScheduler.advance(by:): seconds must be 0 or more, got \(seconds)")
    advance(to: now + seconds)
  }

  /// Moves time on by `interval`: ``advance(by:)-(Double)`` with a `Duration` (converted to
  /// seconds, to attosecond precision as far as a `Double` holds it).
  ///
  /// ```swift
  /// clock.advance(by: .milliseconds(250))
  /// ```
  /// - Precondition: `interval` is zero or more.
  public func advance(by interval: Duration) {
    precondition(interval >= .zero, "TestScheduler.advance(by:): interval must be 0 or more, got \(interval)")
    let (seconds, attoseconds) = interval.components
    advance(by: Double(seconds) + Double(attoseconds) / 1e18)  // 1e18 is exact: a correctly rounded quotient
  }

  /// Moves time on to `time`, running every action due at or before it (like ``advance(by:)`` by
  /// `time - now`, without the rounding of the subtraction: afterwards ``now`` is exactly `time`).
  /// - Precondition: `time` is not before ``now`` (and not NaN).
  public func advance(to time: Double) {
    let current = now
    precondition(time >= current, "TestScheduler.advance(to:): time must not be before now (\(current)), got \(time)")
    while let action = state.withLock({ $0.popFirst(dueAtOrBefore: time) }) {
      action()
    }
    state.withLock { $0.now = Swift.max($0.now, time) }
  }

  /// Runs every scheduled action in time order, moving ``now`` to each one's due time, until none
  /// is left (including the ones scheduled meanwhile). An action that always schedules another
  /// one makes this run forever: use ``advance(by:)`` then.
  public func run() {
    while let action = state.withLock({ $0.popFirst(dueAtOrBefore: .infinity) }) {
      action()
    }
  }

  /// Drops the action `id` if it has not run yet.
  fileprivate func cancel(_ id: UInt64) {
    let dropped = state.withLock { $0.actions.removeValue(forKey: id) }
    // Released here, outside the lock: the closure may hold the last reference to user objects.
    _ = dropped
  }
}

extension TestScheduler {
  /// What the lock protects: the clock and the actions, ordered by (due time, scheduling order).
  private struct State {
    var now: Double = 0
    var nextID: UInt64 = 0
    /// The pending actions by id; a cancelled action is removed here (its heap entry is skipped).
    var actions: [UInt64: @Sendable () -> Void] = [:]
    /// The ids by due time; equal due times run first in, first out.
    var heap = DeadlineHeap<UInt64>()

    mutating func insert(_ action: @escaping @Sendable () -> Void, after seconds: Double) -> UInt64 {
      let id = nextID
      nextID += 1
      actions[id] = action
      heap.insert(id, due: now + seconds)
      return id
    }

    /// Removes and returns the first pending action due at or before `limit`, setting `now` to its
    /// due time (never backwards); `nil` when there is none.
    mutating func popFirst(dueAtOrBefore limit: Double) -> (@Sendable () -> Void)? {
      while let (due, id) = heap.popFirst(dueAtOrBefore: limit) {
        guard let action = actions.removeValue(forKey: id) else { continue }  // cancelled
        now = Swift.max(now, due)
        return action
      }
      return nil
    }
  }

  /// The disposable of `schedule(after:_:)`: cancels the action in its scheduler.
  private final class ScheduledAction: DisposableType {
    private weak let scheduler: TestScheduler?
    private let id: UInt64
    private let disposed = Atomic<Bool>(false)

    init(scheduler: TestScheduler, id: UInt64) {
      self.scheduler = scheduler
      self.id = id
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
      // acquiringAndReleasing: one winner cancels; later callers see it done.
      guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
      scheduler?.cancel(id)
    }
  }
}
