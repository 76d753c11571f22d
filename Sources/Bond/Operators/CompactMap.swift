/// The result of ``EventProducerType/compactMap(_:)``: each event of `Upstream` transformed, the
/// `nil` results dropped.
///
/// A lazy view: observing it observes `Upstream` once, with the transform composed into the
/// observer (no allocation per event).
/// - Note: thread-safe as far as `Upstream` is; `transform` runs on the thread that delivers the event.
public struct CompactMap<Upstream: EventProducerType, Output>: EventProducerType {
  /// The producer whose events are transformed.
  @usableFromInline let upstream: Upstream
  /// The transform applied to each event; `nil` drops it.
  @usableFromInline let transform: (Upstream.Event) -> Output?

  @inlinable
  init(upstream: Upstream, transform: @escaping (Upstream.Event) -> Output?) {
    self.upstream = upstream
    self.transform = transform
  }

  /// The upstream's replay length: the most a new observer can receive.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream once for `observer`: the non-`nil` results; the end and `registered`
  /// pass through.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Output>) -> any DisposableType {
    let transform = self.transform
    return upstream.observe(
      with: observer.withEvent { event in
        if let output = transform(event) { observer.event(output) }
      }
    )
  }
}

extension EventProducerType {
  /// Transforms each event by `transform` and drops the `nil` results.
  ///
  /// ```swift
  /// text.compactMap { Int($0) }.observe { print($0) }  // "1", "x", "2" -> 1, 2
  /// ```
  /// - Parameter transform: called once per event per observer, on the delivering thread.
  /// - Returns: a lazy producer of the non-`nil` results, with the same replay length.
  @inlinable
  public func compactMap<Output>(_ transform: @escaping (Event) -> Output?) -> CompactMap<Self, Output> {
    CompactMap(upstream: self, transform: transform)
  }
}
