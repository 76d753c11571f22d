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

  /// Observes the upstream once for `observer`: the events as described above; the end and
  /// `registered` pass through.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Upstream.Event.Wrapped>) -> any DisposableType {
    upstream.observe(with: observer.withEvent { event in if let value = event.optional { observer.event(value) } })
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
