/// The result of ``EventProducerType/ignoreNil()``: the non-`nil` events of `Upstream`, unwrapped.
///
/// A lazy view, fused into the observer when observed (no allocation per event).
/// - Note: thread-safe as far as `Upstream` is.
public struct IgnoreNil<Upstream: EventProducerType>: EventProducerType where Upstream.Event: OptionalType {
  /// The producer of optional events.
  @usableFromInline let upstream: Upstream

  @inlinable
  init(upstream: Upstream) {
    self.upstream = upstream
  }

  /// The upstream's replay length (an upper bound: replayed `nil`s are dropped too).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream, delivering its non-`nil` events unwrapped.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Upstream.Event.Wrapped) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes the upstream, delivering its non-`nil` events unwrapped; `registered` is forwarded as is.
  @inlinable
  @discardableResult
  public func observe(
    _ observer: @escaping (Upstream.Event.Wrapped) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    upstream.observe({ event in if let value = event.optional { observer(value) } }, registered: registered)
  }
}

extension EventProducerType where Event: OptionalType {
  /// Drops `nil` events and unwraps the others (Bond v4's `ignoreNil`).
  ///
  /// ```swift
  /// text.ignoreNil().observe { print($0) }   // "a", nil, "b" → "a", "b"
  /// ```
  /// - Returns: a lazy producer of the wrapped values.
  @inlinable
  public func ignoreNil() -> IgnoreNil<Self> {
    IgnoreNil(upstream: self)
  }
}
