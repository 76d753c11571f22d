/// The result of ``EventProducerType/distinct(by:)``: the events of `Upstream` that are not
/// duplicates of the one delivered just before them.
///
/// The comparison is per observer, as ``Distinct``'s: each observer remembers the last event it
/// received and asks `isDuplicate(previous, current)`; the first event always passes.
/// - Note: thread-safe as far as `Upstream` is; `isDuplicate` runs on the thread that delivers the
///   event.
public struct DistinctBy<Upstream: EventProducerType>: EventProducerType {
  /// The producer whose duplicate events are dropped.
  @usableFromInline let upstream: Upstream
  /// Whether the second event duplicates the first (the one delivered before it).
  @usableFromInline let isDuplicate: (Upstream.Event, Upstream.Event) -> Bool

  @inlinable
  init(upstream: Upstream, isDuplicate: @escaping (Upstream.Event, Upstream.Event) -> Bool) {
    self.upstream = upstream
    self.isDuplicate = isDuplicate
  }

  /// The upstream's replay length (an upper bound: duplicate replayed events collapse).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream once for `observer`: the events as described above; the end and
  /// `registered` pass through.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Upstream.Event>) -> any DisposableType {
    let isDuplicate = self.isDuplicate
    // The event delivered last to this observer. Delivery to one observer is never concurrent
    // (guarantee 1), so a plain captured var is safe here.
    var delivered: Upstream.Event?
    return upstream.observe(
      with: observer.withEvent { event in
        guard let previous = delivered, isDuplicate(previous, event) else {
          delivered = event
          return observer.event(event)
        }
      }
    )
  }
}

extension EventProducerType {
  /// Drops an event that duplicates the one delivered just before it, as ``EventProducerType/distinct()`` does with
  /// `==` (Combine's `removeDuplicates(by:)`).
  ///
  /// ```swift
  /// readings.distinct(by: { abs($0 - $1) < 0.5 }).observe { print($0) }   // 20, 20.2, 21 → 20, 21
  /// ```
  /// - Parameter isDuplicate: `isDuplicate(previous, current)`, where `previous` is the event
  ///   delivered last to that observer; called on the delivering thread.
  /// - Returns: a lazy producer; each observer compares with the last event it received.
  @inlinable
  public func distinct(by isDuplicate: @escaping (Event, Event) -> Bool) -> DistinctBy<Self> {
    DistinctBy(upstream: self, isDuplicate: isDuplicate)
  }
}
