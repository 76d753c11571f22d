/// The result of ``EventProducerType/skip(while:)``: the events of `Upstream` from the first one
/// that fails the predicate on.
///
/// Per observer: the predicate is asked about each event until it first returns `false`; that event
/// and every later one are delivered, without asking again.
/// - Note: thread-safe as far as `Upstream` is; `predicate` runs on the thread that delivers the event.
public struct SkipWhile<Upstream: EventProducerType>: EventProducerType {
  /// The producer whose first events are dropped.
  @usableFromInline let upstream: Upstream
  /// Whether an event is still dropped.
  @usableFromInline let predicate: (Upstream.Event) -> Bool

  @inlinable
  init(upstream: Upstream, predicate: @escaping (Upstream.Event) -> Bool) {
    self.upstream = upstream
    self.predicate = predicate
  }

  /// The upstream's replay length: the most a new observer can receive.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream once for `observer`: the events as described above; the end and
  /// `registered` pass through.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Upstream.Event>) -> any DisposableType {
    let predicate = self.predicate
    // Per-observer state: delivery to one observer is never concurrent (guarantee 1).
    var dropping = true
    return upstream.observe(
      with: observer.withEvent { event in
        if dropping {
          if predicate(event) { return }
          dropping = false
        }
        observer.event(event)
      }
    )
  }
}

extension EventProducerType {
  /// Drops events while `predicate` holds, then forwards every event.
  ///
  /// ```swift
  /// values.skip(while: { $0 < 3 }).observe { print($0) }  // 1, 2, 3, 1 -> 3, 1
  /// ```
  /// - Parameter predicate: asked about each event until it first returns `false`.
  /// - Returns: a lazy producer with the same replay length.
  @inlinable
  public func skip(while predicate: @escaping (Event) -> Bool) -> SkipWhile<Self> {
    SkipWhile(upstream: self, predicate: predicate)
  }
}
