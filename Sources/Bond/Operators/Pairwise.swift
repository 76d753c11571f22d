/// The result of ``EventProducerType/pairwise()``: each event of `Upstream` with the one before it,
/// as `(previous, current)`, from the second event on.
///
/// Per observer: each observer pairs the events it sees (replayed ones included); its first event
/// is only kept.
/// - Note: thread-safe as far as `Upstream` is.
public struct Pairwise<Upstream: EventProducerType>: EventProducerType {
  /// The producer whose consecutive events are paired.
  @usableFromInline let upstream: Upstream

  @inlinable
  init(upstream: Upstream) {
    self.upstream = upstream
  }

  /// One less than the upstream's replay length (0 if it has none).
  @inlinable
  public var replayLength: Int { Swift.max(0, upstream.replayLength - 1) }

  /// Observes the upstream once for `observer`: the pairs as described above; the end and
  /// `registered` pass through.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<(Upstream.Event, Upstream.Event)>) -> any DisposableType {
    // The observer's previous event. Delivery to one observer is never concurrent (guarantee 1),
    // so a plain captured var is safe here.
    var previous: Upstream.Event?
    return upstream.observe(
      with: observer.withEvent { event in
        let pair = previous.map { ($0, event) }
        previous = event
        if let pair { observer.event(pair) }
      }
    )
  }
}

extension EventProducerType {
  /// Delivers each event with the one before it, `(previous, current)`, from the second event on
  /// (Rx's `pairwise`, Combine's and async-algorithms' `adjacentPairs`).
  ///
  /// ```swift
  /// positions.pairwise().observe { print($0.1 - $0.0) }   // 1, 3, 6 → 2, 3
  /// ```
  /// - Returns: a lazy producer whose `replayLength` is one less than the upstream's; no
  ///   allocation per event.
  @inlinable
  public func pairwise() -> Pairwise<Self> {
    Pairwise(upstream: self)
  }
}
