extension Duration {
  /// This duration in seconds, to attosecond precision (as far as a `Double` holds it): what the
  /// `Duration` forms of the time operators pass to their `seconds` forms.
  @inlinable
  var bondSeconds: Double {
    let (seconds, attoseconds) = components
    // Divided by 1e18 (exact in a Double), not multiplied by 1e-18 (inexact): the quotient is
    // correctly rounded, so .milliseconds(250) is exactly 0.25 and .milliseconds(100) is 0.1.
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}

extension EventProducerType where Event: Sendable {
  /// At most one event per window of `interval`, on `scheduler`, chosen by `mode` (the latest
  /// event of each window by default): ``throttle(seconds:scheduler:mode:)`` with a `Duration`.
  ///
  /// ```swift
  /// searchField.text.throttle(for: .milliseconds(300), scheduler: .main).observe { search($0) }
  /// taps.throttle(for: .seconds(1), scheduler: .main, mode: .leading).observe { submit() }
  /// ```
  /// - Precondition: `interval` is zero or more.
  @inlinable
  public func throttle<S: Scheduler>(
    for interval: Duration,
    scheduler: S,
    mode: ThrottleMode = .latest
  ) -> Throttle<Self, S> {
    precondition(interval >= .zero, "throttle(for:scheduler:mode:): interval must be 0 or more, got \(interval)")
    return Throttle(upstream: self, seconds: interval.bondSeconds, scheduler: scheduler, mode: mode)
  }

  /// An event on `scheduler` once `interval` has passed without a newer one:
  /// ``debounce(seconds:scheduler:)`` with a `Duration`.
  ///
  /// ```swift
  /// searchField.text.debounce(for: .milliseconds(300), scheduler: .main).observe { search($0) }
  /// ```
  /// - Precondition: `interval` is zero or more.
  @inlinable
  public func debounce<S: Scheduler>(for interval: Duration, scheduler: S) -> Debounce<Self, S> {
    precondition(interval >= .zero, "debounce(for:scheduler:): interval must be 0 or more, got \(interval)")
    return Debounce(upstream: self, seconds: interval.bondSeconds, scheduler: scheduler)
  }
}
