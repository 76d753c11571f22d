/// The result of ``EventProducerType/take(while:)``: the events of `Upstream` while the predicate
/// holds; the first event that fails it is not delivered and ends the stream.
///
/// At that event the observation stops observing the upstream at once (its `observerCount` drops),
/// then delivers the end, once; the disposable reports `isDisposed`. The upstream's end passes
/// through.
/// - Note: thread-safe as far as `Upstream` is; `predicate` runs on the thread that delivers the event.
public struct TakeWhile<Upstream: EventProducerType>: EventProducerType {
  /// The producer whose first events are delivered.
  @usableFromInline let upstream: Upstream
  /// Whether an event is still delivered.
  @usableFromInline let predicate: (Upstream.Event) -> Bool

  @inlinable
  init(upstream: Upstream, predicate: @escaping (Upstream.Event) -> Bool) {
    self.upstream = upstream
    self.predicate = predicate
  }

  /// The upstream's replay length: the most a new observer can receive.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream once for `observer`: the events as described above; `registered`
  /// passes through.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Upstream.Event>) -> any DisposableType {
    let predicate = self.predicate
    return observeEndingEarly(upstream, observer, decide: { predicate($0) ? .deliver : .end })
  }
}

extension EventProducerType {
  /// Delivers events while `predicate` holds; the first event that fails it is not delivered and
  /// ends the stream (the upstream is no longer observed).
  ///
  /// ```swift
  /// values.take(while: { $0 < 3 }).observe { print($0) } finished: { print("done") }
  /// // 1, 2, 3, 1 -> 1, 2, done
  /// ```
  /// - Parameter predicate: asked about each event, on the delivering thread.
  /// - Returns: a lazy producer with the same replay length.
  @inlinable
  public func take(while predicate: @escaping (Event) -> Bool) -> TakeWhile<Self> {
    TakeWhile(upstream: self, predicate: predicate)
  }
}
