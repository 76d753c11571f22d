/// The result of ``EventProducerType/skip(_:)``: the events of `Upstream` after the first `count`
/// that each observer would see.
///
/// The count is per observer and includes the replay: an observer of `skip(1)` on a producer with a
/// replay of 2 receives the second replayed event, then every live one.
/// - Note: thread-safe as far as `Upstream` is.
public struct Skip<Upstream: EventProducerType>: EventProducerType {
  /// The producer whose first events are dropped.
  @usableFromInline let upstream: Upstream
  /// How many events each observer does not receive; never negative.
  @usableFromInline let count: Int

  @inlinable
  init(upstream: Upstream, count: Int) {
    self.upstream = upstream
    self.count = count
  }

  /// The upstream's replay length less `count`, never below 0.
  @inlinable
  public var replayLength: Int { Swift.max(0, upstream.replayLength - count) }

  /// Observes the upstream, dropping the first `count` events this observer would receive.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Upstream.Event) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes the upstream, dropping the first `count` events; `registered` is forwarded as is
  /// (it may come before the count is used up, e.g. when the replay is shorter than `count`).
  @inlinable
  @discardableResult
  public func observe(
    _ observer: @escaping (Upstream.Event) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    if count == 0 { return upstream.observe(observer, registered: registered) }
    // Per-observer state, captured once at subscription. Delivery to one observer is never
    // concurrent (guarantee 1), so a plain captured var is safe here.
    var remaining = count
    return upstream.observe(
      { event in
        if remaining > 0 {
          remaining -= 1
        } else {
          observer(event)
        }
      },
      registered: registered
    )
  }
}

extension EventProducerType {
  /// Drops the first `count` events that each observer would see, replayed ones included.
  ///
  /// `skip(replayLength)` ignores the replay, like ``observeNew(_:)``:
  /// ```swift
  /// name.skip(name.replayLength).bindTo(label, \.text)
  /// ```
  /// - Parameter count: how many events to drop per observer; must not be negative.
  /// - Returns: a lazy producer whose `replayLength` is `max(0, replayLength - count)`.
  /// - Precondition: `count >= 0`.
  @inlinable
  public func skip(_ count: Int) -> Skip<Self> {
    precondition(count >= 0, "skip(_:): count must not be negative, got \(count)")
    return Skip(upstream: self, count: count)
  }
}
