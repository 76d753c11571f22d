// The spellings of the timed operators before 1.0 (`queue:` for the scheduler, an unlabeled
// `Duration` for `interval`). A timed operator or a creation form takes `scheduler:` (any
// `Scheduler`, Combine's and RxSwift's label), so each of these only forwards to its new spelling,
// with no behaviour of its own; they stay for one release so that code written for them compiles.

extension EventProducerType where Event: Sendable {
  /// Deprecated: ``throttle(seconds:scheduler:mode:)``.
  @available(*, deprecated, renamed: "throttle(seconds:scheduler:)")
  @inlinable
  public func throttle<S: Scheduler>(seconds: Double, queue: S) -> Throttle<Self, S> {
    throttle(seconds: seconds, scheduler: queue)
  }

  /// Deprecated: ``throttle(seconds:scheduler:mode:)``.
  @available(*, deprecated, renamed: "throttle(seconds:scheduler:mode:)")
  @inlinable
  public func throttle<S: Scheduler>(seconds: Double, queue: S, mode: ThrottleMode) -> Throttle<Self, S> {
    throttle(seconds: seconds, scheduler: queue, mode: mode)
  }

  /// Deprecated: ``throttle(for:scheduler:mode:)``.
  @available(*, deprecated, renamed: "throttle(for:scheduler:)")
  @inlinable
  public func throttle<S: Scheduler>(for interval: Duration, queue: S) -> Throttle<Self, S> {
    throttle(for: interval, scheduler: queue)
  }

  /// Deprecated: ``throttle(for:scheduler:mode:)``.
  @available(*, deprecated, renamed: "throttle(for:scheduler:mode:)")
  @inlinable
  public func throttle<S: Scheduler>(for interval: Duration, queue: S, mode: ThrottleMode) -> Throttle<Self, S> {
    throttle(for: interval, scheduler: queue, mode: mode)
  }

  /// Deprecated: ``debounce(seconds:scheduler:)``.
  @available(*, deprecated, renamed: "debounce(seconds:scheduler:)")
  @inlinable
  public func debounce<S: Scheduler>(seconds: Double, queue: S) -> Debounce<Self, S> {
    debounce(seconds: seconds, scheduler: queue)
  }

  /// Deprecated: ``debounce(for:scheduler:)``.
  @available(*, deprecated, renamed: "debounce(for:scheduler:)")
  @inlinable
  public func debounce<S: Scheduler>(for interval: Duration, queue: S) -> Debounce<Self, S> {
    debounce(for: interval, scheduler: queue)
  }

  /// Deprecated: ``delay(seconds:scheduler:)``.
  @available(*, deprecated, renamed: "delay(seconds:scheduler:)")
  @inlinable
  public func delay<S: Scheduler>(seconds: Double, queue: S) -> Delay<Self, S> {
    delay(seconds: seconds, scheduler: queue)
  }

  /// Deprecated: ``delay(for:scheduler:)``.
  @available(*, deprecated, renamed: "delay(for:scheduler:)")
  @inlinable
  public func delay<S: Scheduler>(for interval: Duration, queue: S) -> Delay<Self, S> {
    delay(for: interval, scheduler: queue)
  }

  /// Deprecated: ``timeout(seconds:scheduler:)``.
  @available(*, deprecated, renamed: "timeout(seconds:scheduler:)")
  @inlinable
  public func timeout<S: Scheduler>(seconds: Double, queue: S) -> Timeout<Self, S> {
    timeout(seconds: seconds, scheduler: queue)
  }

  /// Deprecated: ``timeout(seconds:scheduler:sending:)``.
  @available(*, deprecated, renamed: "timeout(seconds:scheduler:sending:)")
  @inlinable
  public func timeout<S: Scheduler>(seconds: Double, queue: S, sending last: Event) -> Timeout<Self, S> {
    timeout(seconds: seconds, scheduler: queue, sending: last)
  }

  /// Deprecated: ``timeout(for:scheduler:)``.
  @available(*, deprecated, renamed: "timeout(for:scheduler:)")
  @inlinable
  public func timeout<S: Scheduler>(for interval: Duration, queue: S) -> Timeout<Self, S> {
    timeout(for: interval, scheduler: queue)
  }

  /// Deprecated: ``timeout(for:scheduler:sending:)``.
  @available(*, deprecated, renamed: "timeout(for:scheduler:sending:)")
  @inlinable
  public func timeout<S: Scheduler>(for interval: Duration, queue: S, sending last: Event) -> Timeout<Self, S> {
    timeout(for: interval, scheduler: queue, sending: last)
  }

  /// Deprecated: ``collect(count:orEvery:scheduler:)-(_,Double,_)``.
  @available(*, deprecated, renamed: "collect(count:orEvery:scheduler:)")
  @inlinable
  public func collect<S: Scheduler>(count: Int, orEvery seconds: Double, queue: S) -> TimedCollect<Self, S> {
    collect(count: count, orEvery: seconds, scheduler: queue)
  }

  /// Deprecated: ``collect(count:orEvery:scheduler:)-(_,Duration,_)``.
  @available(*, deprecated, renamed: "collect(count:orEvery:scheduler:)")
  @inlinable
  public func collect<S: Scheduler>(count: Int, orEvery interval: Duration, queue: S) -> TimedCollect<Self, S> {
    collect(count: count, orEvery: interval, scheduler: queue)
  }
}

extension EventProducer where Event == Int {
  /// Deprecated: ``interval(seconds:scheduler:)``.
  @available(*, deprecated, renamed: "interval(seconds:scheduler:)")
  @inlinable
  public static func interval<S: Scheduler>(seconds: Double, queue: S) -> Ticks<S> {
    interval(seconds: seconds, scheduler: queue)
  }

  /// Deprecated: ``interval(every:scheduler:)``.
  @available(*, deprecated, renamed: "interval(every:scheduler:)")
  @inlinable
  public static func interval<S: Scheduler>(_ period: Duration, queue: S) -> Ticks<S> {
    interval(every: period, scheduler: queue)
  }

  /// Deprecated: ``timer(after:scheduler:)-(Double,_)``.
  @available(*, deprecated, renamed: "timer(after:scheduler:)")
  @inlinable
  public static func timer<S: Scheduler>(after seconds: Double, queue: S) -> Ticks<S> {
    timer(after: seconds, scheduler: queue)
  }

  /// Deprecated: ``timer(after:scheduler:)-(Duration,_)``.
  @available(*, deprecated, renamed: "timer(after:scheduler:)")
  @inlinable
  public static func timer<S: Scheduler>(after delay: Duration, queue: S) -> Ticks<S> {
    timer(after: delay, scheduler: queue)
  }
}
