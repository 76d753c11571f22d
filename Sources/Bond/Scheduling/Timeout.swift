extension EventProducerType where Event: Sendable {
  /// Delivers the events on `scheduler` and ends the stream when none arrives within `seconds` of
  /// `observe` or of the previous event; it then stops observing the upstream.
  ///
  /// Bond has no failure channel: a timeout is an end. To tell it apart from the upstream's end,
  /// use ``timeout(seconds:scheduler:sending:)``.
  ///
  /// ```swift
  /// heartbeats.timeout(seconds: 5, scheduler: .main).observe { _ in } finished: { reconnect() }
  /// ```
  ///
  /// | time (s)  | 0 (observe) | 0.25 | 1.25 |
  /// |-----------|-------------|------|------|
  /// | upstream  |             | 1    |      |
  /// | delivered |             | 1    | end  |
  ///
  /// (`seconds` 1.) The upstream's end before the timeout ends it as usual (at once, on `scheduler`).
  /// On a ``ClockedScheduler`` (a `DispatchQueue`, a `TestScheduler`) each event costs a lock and a
  /// clock read: it moves the deadline, and a timer that fires before it is scheduled again for the
  /// rest; on another scheduler, a cancel and a `schedule(after:)`, as ``debounce(seconds:scheduler:)``.
  /// See <doc:TimeoutGuide>.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @inlinable
  public func timeout<S: Scheduler>(seconds: Double, scheduler: S) -> Timeout<Self, S> {
    precondition(seconds >= 0, "timeout(seconds:scheduler:): seconds must be 0 or more, got \(seconds)")
    return Timeout(upstream: self, seconds: seconds, scheduler: scheduler, last: nil)
  }

  /// ``timeout(seconds:scheduler:)`` that sends `last` before its end when it times out (not when the
  /// upstream ends), for example a `.failure(TimeoutError())` in a `Result` stream.
  ///
  /// ```swift
  /// replies.timeout(seconds: 2, scheduler: .main, sending: .failure(TimeoutError())).observe { handle($0) }
  /// ```
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @inlinable
  public func timeout<S: Scheduler>(seconds: Double, scheduler: S, sending last: Event) -> Timeout<Self, S> {
    precondition(seconds >= 0, "timeout(seconds:scheduler:sending:): seconds must be 0 or more, got \(seconds)")
    return Timeout(upstream: self, seconds: seconds, scheduler: scheduler, last: last)
  }

  /// ``timeout(seconds:scheduler:)`` with a `Duration`: ends the stream when no event arrives within
  /// `interval`.
  ///
  /// ```swift
  /// heartbeats.timeout(for: .seconds(5), scheduler: .main).observe { _ in } finished: { reconnect() }
  /// ```
  /// - Precondition: `interval` is zero or more.
  @inlinable
  public func timeout<S: Scheduler>(for interval: Duration, scheduler: S) -> Timeout<Self, S> {
    precondition(interval >= .zero, "timeout(for:scheduler:): interval must be 0 or more, got \(interval)")
    return Timeout(upstream: self, seconds: interval.bondSeconds, scheduler: scheduler, last: nil)
  }

  /// ``timeout(seconds:scheduler:sending:)`` with a `Duration`: sends `last`, then ends, when no event
  /// arrives within `interval`.
  ///
  /// ```swift
  /// replies.timeout(for: .seconds(2), scheduler: .main, sending: .failure(TimeoutError())).observe { handle($0) }
  /// ```
  /// - Precondition: `interval` is zero or more.
  @inlinable
  public func timeout<S: Scheduler>(for interval: Duration, scheduler: S, sending last: Event) -> Timeout<Self, S> {
    precondition(interval >= .zero, "timeout(for:scheduler:sending:): interval must be 0 or more, got \(interval)")
    return Timeout(upstream: self, seconds: interval.bondSeconds, scheduler: scheduler, last: last)
  }
}

/// The producer that ``EventProducerType/timeout(for:scheduler:)`` and its forms return. A light
/// value; each observation has its own timer, armed by `observe`.
/// - Note: thread-safe to observe from any thread; the upstream may send from several threads;
///   observers are called on the scheduler, one event at a time, in order.
public struct Timeout<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = Upstream.Event

  @usableFromInline let upstream: Upstream
  @usableFromInline let seconds: Double
  @usableFromInline let scheduler: S
  @usableFromInline let last: Event?

  @inlinable
  init(upstream: Upstream, seconds: Double, scheduler: S, last: Event?) {
    (self.upstream, self.seconds, self.scheduler, self.last) = (upstream, seconds, scheduler, last)
  }

  /// The upstream's: its replay passes through (on the scheduler).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Registers `observer`, called on the scheduler with the upstream's events, `registered` after
  /// the replayed ones; arms the timer. When it fires (no event within `seconds`), `last` (if any)
  /// then `finished` are delivered and the upstream observation is disposed.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    TimedSink.observe(
      upstream,
      with: observer,
      on: scheduler,
      seconds: seconds,
      machine: TimeoutStateMachine(last: last, seconds: seconds)
    )
  }
}
