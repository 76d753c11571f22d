extension EventProducer where Event == Int {
  /// A cold producer that sends 0, 1, 2, ... on `scheduler`, one every `seconds`, the first one
  /// `seconds` after `observe`, until the observation is disposed (Rx's `interval`): a heartbeat
  /// or a periodic flush.
  ///
  /// ```swift
  /// let heartbeat = EventProducer<Int>.interval(seconds: 30, scheduler: .main).observe { _ in ping() }
  /// ```
  ///
  /// | time (s)  | 0 (observe) | 1 | 2 | 3 |
  /// |-----------|-------------|---|---|---|
  /// | delivered |             | 0 | 1 | 2 |
  ///
  /// Tick n is due at start + (n + 1) × `seconds` on the clock of a ``ClockedScheduler`` (a
  /// `DispatchQueue`, a `TestScheduler`), not one period after the previous tick ran, so late
  /// ticks do not add up: no drift. It never ends; see <doc:IntervalGuide>.
  /// - Precondition: `seconds` is more than 0 (not NaN).
  @inlinable
  public static func interval<S: Scheduler>(seconds: Double, scheduler: S) -> Ticks<S> {
    precondition(seconds > 0, "interval(seconds:scheduler:): seconds must be more than 0, got \(seconds)")
    return Ticks(period: seconds, repeats: true, scheduler: scheduler)
  }

  /// ``interval(seconds:scheduler:)`` with a `Duration`: 0, 1, 2, ... on `scheduler`, one every
  /// `period`.
  ///
  /// ```swift
  /// EventProducer<Int>.interval(every: .milliseconds(500), scheduler: .main).take(3).observe { print($0) }
  /// ```
  /// - Precondition: `period` is more than zero.
  @inlinable
  public static func interval<S: Scheduler>(every period: Duration, scheduler: S) -> Ticks<S> {
    precondition(period > .zero, "interval(every:scheduler:): period must be more than 0, got \(period)")
    return Ticks(period: period.bondSeconds, repeats: true, scheduler: scheduler)
  }

  /// A cold producer that sends 0 on `scheduler` `seconds` after `observe`, then the end (Rx's
  /// `timer`).
  ///
  /// ```swift
  /// EventProducer<Int>.timer(after: 2, scheduler: .main).observe { _ in showHint() }
  /// ```
  ///
  /// | time (s)  | 0 (observe) | 2       |
  /// |-----------|-------------|---------|
  /// | delivered |             | 0, end  |
  ///
  /// Disposing before then cancels it. See <doc:IntervalGuide>.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @inlinable
  public static func timer<S: Scheduler>(after seconds: Double, scheduler: S) -> Ticks<S> {
    precondition(seconds >= 0, "timer(after:scheduler:): seconds must be 0 or more, got \(seconds)")
    return Ticks(period: seconds, repeats: false, scheduler: scheduler)
  }

  /// ``timer(after:scheduler:)-(Double,_)`` with a `Duration`: 0 on `scheduler` after `delay`,
  /// then the end.
  ///
  /// ```swift
  /// EventProducer<Int>.timer(after: .seconds(2), scheduler: .main).observe { _ in showHint() }
  /// ```
  /// - Precondition: `delay` is zero or more.
  @inlinable
  public static func timer<S: Scheduler>(after delay: Duration, scheduler: S) -> Ticks<S> {
    precondition(delay >= .zero, "timer(after:scheduler:): delay must be 0 or more, got \(delay)")
    return Ticks(period: delay.bondSeconds, repeats: false, scheduler: scheduler)
  }
}

/// The producer that ``EventProducer/interval(every:scheduler:)`` and
/// ``EventProducer/timer(after:scheduler:)-(Duration,_)`` return: ticks numbered from 0 on a scheduler. A light value; cold: each observation has its own
/// clock and timer, started by `observe`.
/// - Note: thread-safe to observe and dispose from any thread; observers are called on the
///   scheduler, one tick at a time (the next tick is scheduled once the observer has returned).
public struct Ticks<S: Scheduler>: EventProducerType {
  public typealias Event = Int

  @usableFromInline let period: Double
  @usableFromInline let repeats: Bool
  @usableFromInline let scheduler: S

  @inlinable
  init(period: Double, repeats: Bool, scheduler: S) {
    (self.period, self.repeats, self.scheduler) = (period, repeats, scheduler)
  }

  /// 0: every tick comes later, on the scheduler.
  @inlinable
  public var replayLength: Int { 0 }

  /// Calls `registered` at once (nothing is replayed), then schedules the first tick one period
  /// from now. An interval never ends; a timer ends right after its 0. After `dispose()` returns
  /// no new tick starts, and the observer is released.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Int>) -> any DisposableType {
    observer.registered?()
    let sink = TicksSink(scheduler: scheduler, period: period, repeats: repeats, observer: observer)
    sink.scheduleTick()
    return sink
  }
}
