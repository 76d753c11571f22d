extension EventProducerType where Event: Sendable {
  /// Delivers each event `seconds` after it arrived, on `scheduler`, in order; the end after the last
  /// event.
  ///
  /// ```swift
  /// toasts.delay(seconds: 2, scheduler: .main).observe { toast in hide(toast) }
  /// ```
  ///
  /// | time (s)  | 0 | 0.5     | 1 | 1.5     |
  /// |-----------|---|---------|---|---------|
  /// | upstream  | 1 | 2, end  |   |         |
  /// | delivered |   |         | 1 | 2, end  |
  ///
  /// (`seconds` 1.) Disposing drops the waiting events (released at once) and cancels their timers.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @inlinable
  public func delay<S: Scheduler>(seconds: Double, scheduler: S) -> Delay<Self, S> {
    precondition(seconds >= 0, "delay(seconds:scheduler:): seconds must be 0 or more, got \(seconds)")
    return Delay(upstream: self, seconds: seconds, scheduler: scheduler)
  }

  /// ``delay(seconds:scheduler:)`` with a `Duration`: each event `interval` after it arrived, on
  /// `scheduler`, in order.
  ///
  /// ```swift
  /// toasts.delay(for: .seconds(2), scheduler: .main).observe { toast in hide(toast) }
  /// ```
  /// - Precondition: `interval` is zero or more.
  @inlinable
  public func delay<S: Scheduler>(for interval: Duration, scheduler: S) -> Delay<Self, S> {
    precondition(interval >= .zero, "delay(for:scheduler:): interval must be 0 or more, got \(interval)")
    return Delay(upstream: self, seconds: interval.bondSeconds, scheduler: scheduler)
  }
}

/// The producer that ``EventProducerType/delay(for:scheduler:)`` returns. A light value; each
/// observation has its own waiting events.
/// - Note: thread-safe to observe from any thread; the upstream may send from several threads;
///   observers are called on the scheduler, one event at a time, in arrival order.
public struct Delay<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = Upstream.Event

  @usableFromInline let upstream: Upstream
  @usableFromInline let seconds: Double
  @usableFromInline let scheduler: S

  @inlinable
  init(upstream: Upstream, seconds: Double, scheduler: S) {
    self.upstream = upstream
    self.seconds = seconds
    self.scheduler = scheduler
  }

  /// The upstream's replay, delayed like any event.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Registers `observer`, called on the scheduler with each event `seconds` after it arrived;
  /// `registered` right after the delayed events of the registration; `finished` after the last
  /// event.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    TimedSink.observe(upstream, with: observer, on: scheduler, seconds: seconds, machine: DelayStateMachine())
  }
}
