/// The result of ``EventProducerType/take(_:)`` and ``EventProducerType/first()``: the first
/// `count` events of `Upstream` that each observer would see (the replay included), then the end.
///
/// When the `count`-th event has been delivered, the observation stops observing the upstream at
/// once (its `observerCount` drops, its closures are released), then delivers the end, once; the
/// disposable reports `isDisposed`. This holds when the count is reached during the replay and
/// inside another thread's delivery. `take(0)` ends at once without observing the upstream.
/// - Note: thread-safe as far as `Upstream` is.
public struct Take<Upstream: EventProducerType>: EventProducerType {
  /// The producer whose first events are delivered.
  @usableFromInline let upstream: Upstream
  /// How many events each observer receives at most; never negative.
  @usableFromInline let count: Int

  @inlinable
  init(upstream: Upstream, count: Int) {
    self.upstream = upstream
    self.count = count
  }

  /// `min(count, upstream.replayLength)`.
  @inlinable
  public var replayLength: Int { Swift.min(count, upstream.replayLength) }

  /// Observes the upstream once for `observer`: the first `count` events, then the end (or the
  /// upstream's end if it comes first); `registered` passes through.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Upstream.Event>) -> any DisposableType {
    if count == 0 { return endedObservation(observer) }
    // The count is kept per observation, in the observation's state.
    return observeEndingEarly(upstream, observer, count: count)
  }
}

extension EventProducerType {
  /// Delivers the first `count` events that each observer would see, replayed ones included, then
  /// ends and stops observing the upstream.
  ///
  /// ```swift
  /// responses.take(2).observe { print($0) } finished: { print("done") }  // a, b, c -> a, b, done
  /// ```
  /// - Parameter count: how many events to deliver per observer; must not be negative. `take(0)`
  ///   ends at once.
  /// - Returns: a lazy producer whose `replayLength` is `min(count, replayLength)`.
  /// - Precondition: `count >= 0`.
  @inlinable
  public func take(_ count: Int) -> Take<Self> {
    precondition(count >= 0, "take(_:): count must not be negative, got \(count)")
    return Take(upstream: self, count: count)
  }

  /// The first event each observer would see (the replay included), then the end: `take(1)`.
  ///
  /// ```swift
  /// response.first().observe { print($0) } finished: { print("done") }
  /// ```
  /// - Returns: a lazy producer whose `replayLength` is `min(1, replayLength)`.
  @inlinable
  public func first() -> Take<Self> {
    Take(upstream: self, count: 1)
  }
}
