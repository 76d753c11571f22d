/// The result of ``EventProducerType/filter(_:)``: the events of `Upstream` that pass a test.
///
/// A lazy view, fused into the observer when observed (no allocation per event).
/// - Note: thread-safe as far as `Upstream` is; `isIncluded` runs on the thread that delivers the event.
public struct Filter<Upstream: EventProducerType>: EventProducerType {
  /// The producer whose events are tested.
  @usableFromInline let upstream: Upstream
  /// The test an event must pass to be forwarded.
  @usableFromInline let isIncluded: (Upstream.Event) -> Bool

  @inlinable
  init(upstream: Upstream, isIncluded: @escaping (Upstream.Event) -> Bool) {
    self.upstream = upstream
    self.isIncluded = isIncluded
  }

  /// The upstream's replay length (an upper bound: replayed events are filtered too).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream, delivering the events that pass the test.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Upstream.Event) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes the upstream, delivering the events that pass the test; `registered` is forwarded as is.
  @inlinable
  @discardableResult
  public func observe(
    _ observer: @escaping (Upstream.Event) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    let isIncluded = self.isIncluded
    return upstream.observe({ event in if isIncluded(event) { observer(event) } }, registered: registered)
  }
}

extension EventProducerType {
  /// Forwards only the events for which `isIncluded` returns `true` (Bond v4's `filter`).
  ///
  /// ```swift
  /// numbers.filter { $0 > 2 }.observe { print($0) }
  /// ```
  /// - Parameter isIncluded: called once per event per observer, on the delivering thread.
  /// - Returns: a lazy producer of the events that pass.
  @inlinable
  public func filter(_ isIncluded: @escaping (Event) -> Bool) -> Filter<Self> {
    Filter(upstream: self, isIncluded: isIncluded)
  }
}
