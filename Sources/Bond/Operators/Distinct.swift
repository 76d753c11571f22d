/// The result of ``EventProducerType/distinct()``: the events of `Upstream` that differ from the
/// one delivered just before them.
///
/// The comparison is per observer: each observer remembers the last event it received.
/// - Note: thread-safe as far as `Upstream` is.
public struct Distinct<Upstream: EventProducerType>: EventProducerType where Upstream.Event: Equatable {
  /// The producer whose repeated events are dropped.
  @usableFromInline let upstream: Upstream

  @inlinable
  init(upstream: Upstream) {
    self.upstream = upstream
  }

  /// The upstream's replay length (an upper bound: equal replayed events collapse).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream, dropping an event equal to the one this observer received last.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Upstream.Event) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes the upstream, dropping repeats; `registered` is forwarded as is.
  @inlinable
  @discardableResult
  public func observe(
    _ observer: @escaping (Upstream.Event) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    // Per-observer state, captured once at subscription. Delivery to one observer is never
    // concurrent (guarantee 1), so a plain captured var is safe here.
    var last: Upstream.Event?
    return upstream.observe(
      { event in
        if let previous = last, previous == event { return }
        last = event
        observer(event)
      },
      registered: registered
    )
  }
}

extension EventProducerType where Event: Equatable {
  /// Drops an event equal to the one delivered just before it (Bond v4's `distinct`).
  ///
  /// ```swift
  /// temperature.distinct().observe { print($0) }   // 20, 20, 21, 20 → 20, 21, 20
  /// ```
  /// - Returns: a lazy producer; each observer compares with the last event it received.
  @inlinable
  public func distinct() -> Distinct<Self> {
    Distinct(upstream: self)
  }
}
