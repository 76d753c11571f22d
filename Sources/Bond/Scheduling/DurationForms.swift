extension Duration {
  /// This duration in seconds, to attosecond precision (as far as a `Double` holds it): what the
  /// `Duration` forms of the time operators pass to their `seconds` forms.
  @inlinable
  var bondSeconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) * 1e-18
  }
}

extension EventProducerType where Event: Sendable {
  /// ``throttle(seconds:queue:)`` with a `Duration`: at most one event per window of `interval`,
  /// on `queue`.
  ///
  /// ```swift
  /// searchField.text.throttle(for: .milliseconds(300), queue: .main).observe { search($0) }
  /// ```
  /// - Precondition: `interval` is zero or more.
  @inlinable
  public func throttle<S: Scheduler>(for interval: Duration, queue: S) -> Throttle<Self, S> {
    precondition(interval >= .zero, "throttle(for:queue:): interval must be 0 or more, got \(interval)")
    return throttle(seconds: interval.bondSeconds, queue: queue)
  }

  /// ``throttle(seconds:queue:mode:)`` with a `Duration`.
  ///
  /// ```swift
  /// taps.throttle(for: .seconds(1), queue: .main, mode: .leading).observe { submit() }
  /// ```
  /// - Precondition: `interval` is zero or more.
  @inlinable
  public func throttle<S: Scheduler>(for interval: Duration, queue: S, mode: ThrottleMode) -> Throttle<Self, S> {
    precondition(interval >= .zero, "throttle(for:queue:mode:): interval must be 0 or more, got \(interval)")
    return throttle(seconds: interval.bondSeconds, queue: queue, mode: mode)
  }

  /// ``debounce(seconds:queue:)`` with a `Duration`: an event on `queue` once `interval` has passed
  /// without a newer one.
  ///
  /// ```swift
  /// searchField.text.debounce(for: .milliseconds(300), queue: .main).observe { search($0) }
  /// ```
  /// - Precondition: `interval` is zero or more.
  @inlinable
  public func debounce<S: Scheduler>(for interval: Duration, queue: S) -> Debounce<Self, S> {
    precondition(interval >= .zero, "debounce(for:queue:): interval must be 0 or more, got \(interval)")
    return debounce(seconds: interval.bondSeconds, queue: queue)
  }
}
