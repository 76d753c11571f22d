/// Something that runs actions later: now (as soon as it can) or after a delay.
///
/// The time-based operators (``EventProducerType/deliverOn(_:)``,
/// ``EventProducerType/throttle(for:scheduler:mode:)``, ``EventProducerType/debounce(for:scheduler:)``)
/// take any scheduler, so that time can be injected: Bond provides `DispatchQueue` as a scheduler,
/// and BondTesting's `TestScheduler` runs actions on virtual time in tests.
///
/// ```swift
/// DispatchQueue.main.schedule { print("soon, on the main queue") }
/// let timer = DispatchQueue.main.schedule(after: .milliseconds(500)) { print("half a second later") }
/// timer.dispose()   // cancels it if it has not started yet
/// ```
///
/// A conforming type must:
/// - run each action at most once, and never run one whose disposable was disposed before it started;
/// - release an action (and what it captured) once it has run or was cancelled;
/// - accept calls from any thread.
///
/// It does not have to run actions one at a time (a concurrent `DispatchQueue` does not): the
/// operators serialize their deliveries themselves.
///
/// - Note: conforming types are thread-safe.
public protocol Scheduler: Sendable {
  /// Runs `action` as soon as possible (asynchronously: never before this call returns, unless
  /// the scheduler documents otherwise).
  func schedule(_ action: @escaping @Sendable () -> Void)

  /// Runs `action` after `seconds` (0 or more; a negative or NaN delay is a precondition failure).
  ///
  /// - Returns: a disposable that cancels the action: once it is disposed, the action does not
  ///   start (if it is already running, it runs to its end) and it is released.
  @discardableResult
  func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any DisposableType
}

extension Scheduler {
  /// Runs `action` after `delay`: ``schedule(after:_:)-(Double,_)`` with a `Duration` (converted
  /// to seconds, to attosecond precision as far as a `Double` holds it).
  ///
  /// ```swift
  /// let retry = DispatchQueue.main.schedule(after: .seconds(2)) { reconnect() }
  /// ```
  /// - Returns: a disposable that cancels the action (see ``schedule(after:_:)-(Double,_)``).
  /// - Precondition: `delay` is zero or more.
  @inlinable
  @discardableResult
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any DisposableType {
    precondition(delay >= .zero, "schedule(after:_:): delay must be 0 or more, got \(delay)")
    return schedule(after: delay.bondSeconds, action)
  }
}

/// A ``Scheduler`` that tells its time, so that a periodic producer
/// (``EventProducer/interval(every:scheduler:)``) schedules each tick at an absolute time
/// (start + n × period) and never drifts.
///
/// `DispatchQueue` (the uptime clock of its deadlines) and BondTesting's `TestScheduler` (its
/// virtual time) conform. On a scheduler that does not, each tick is scheduled one period after
/// the previous one ran.
/// - Note: conforming types are thread-safe.
public protocol ClockedScheduler: Scheduler {
  /// The current time in seconds, on the clock `schedule(after:_:)` counts its delays on (any
  /// origin; it never goes backwards).
  var now: Double { get }
}
