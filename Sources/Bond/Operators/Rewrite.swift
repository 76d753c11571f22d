/// The result of ``EventProducerType/rewrite(_:)``: every event of `Upstream` replaced by one value.
///
/// A lazy view, fused into the observer when observed (no allocation per event).
/// - Note: thread-safe as far as `Upstream` is.
public struct Rewrite<Upstream: EventProducerType, Output>: EventProducerType {
  /// The producer whose events are replaced.
  @usableFromInline let upstream: Upstream
  /// The value delivered for every upstream event.
  @usableFromInline let value: Output

  @inlinable
  init(upstream: Upstream, value: Output) {
    self.upstream = upstream
    self.value = value
  }

  /// The upstream's replay length: each replayed event becomes `value`.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream, delivering `value` for each of its events.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Output) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes the upstream, delivering `value` for each of its events; `registered` is forwarded as is.
  @inlinable
  @discardableResult
  public func observe(
    _ observer: @escaping (Output) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    let value = self.value
    return upstream.observe({ _ in observer(value) }, registered: registered)
  }
}

extension EventProducerType {
  /// Replaces every event by `value` (Bond v3's `rewrite`), e.g. to turn taps into a constant.
  ///
  /// ```swift
  /// taps.rewrite(1).reduce(0, +).observe { print("tapped \($0) times") }
  /// ```
  /// - Parameter value: the event delivered for each upstream event.
  /// - Returns: a lazy producer with the same replay length.
  @inlinable
  public func rewrite<Output>(_ value: Output) -> Rewrite<Self, Output> {
    Rewrite(upstream: self, value: value)
  }
}
