/// The result of ``EventProducerType/map(_:)``: each event of `Upstream` transformed.
///
/// A lazy view: it does nothing until observed; observing it observes `Upstream` once, with the
/// transform composed into the observer (no allocation per event, no intermediate producer).
/// - Note: thread-safe as far as `Upstream` is; `transform` runs on the thread that delivers the event.
public struct Map<Upstream: EventProducerType, Output>: EventProducerType {
  /// The producer whose events are transformed.
  @usableFromInline let upstream: Upstream
  /// The transform applied to each event.
  @usableFromInline let transform: (Upstream.Event) -> Output

  @inlinable
  init(upstream: Upstream, transform: @escaping (Upstream.Event) -> Output) {
    self.upstream = upstream
    self.transform = transform
  }

  /// The upstream's replay length: every replayed event is transformed.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream, delivering each event transformed.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Output) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes the upstream, delivering each event transformed; `registered` is forwarded as is.
  @inlinable
  @discardableResult
  public func observe(
    _ observer: @escaping (Output) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    let transform = self.transform
    return upstream.observe({ event in observer(transform(event)) }, registered: registered)
  }
}

extension EventProducerType {
  /// Transforms each event by `transform` (Bond v4's `map`).
  ///
  /// ```swift
  /// numbers.map { "\($0)" }.observe { print($0) }
  /// ```
  /// - Parameter transform: called once per event per observer, on the delivering thread.
  /// - Returns: a lazy producer of the transformed events, with the same replay length.
  @inlinable
  public func map<Output>(_ transform: @escaping (Event) -> Output) -> Map<Self, Output> {
    Map(upstream: self, transform: transform)
  }
}
