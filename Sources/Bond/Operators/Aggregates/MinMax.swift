extension EventProducerType {
  /// At the end, the smallest event each observer saw (the first of equal ones), then the end; only
  /// the end for an empty stream.
  ///
  /// ```swift
  /// names.min(by: { $0.count < $1.count }).observe { print($0) }   // "ann", "al", "bo" → "al"
  /// ```
  /// See <doc:AggregatesGuide>.
  /// - Parameter areIncreasing: a strict weak ordering: whether the first argument comes before the
  ///   second; called on the delivering thread.
  /// - Returns: a lazy producer of at most one event then the end; no allocation per event.
  @inlinable
  public func min(by areIncreasing: @escaping (Event, Event) -> Bool) -> some EventProducerType<Event> {
    extremum { candidate, kept in areIncreasing(candidate, kept) }
  }

  /// At the end, the largest event each observer saw (the first of equal ones), then the end; only
  /// the end for an empty stream.
  ///
  /// ```swift
  /// names.max(by: { $0.count < $1.count }).observe { print($0) }   // "ann", "al", "bob" → "ann"
  /// ```
  /// See <doc:AggregatesGuide>.
  /// - Parameter areIncreasing: a strict weak ordering: whether the first argument comes before the
  ///   second; called on the delivering thread.
  /// - Returns: a lazy producer of at most one event then the end; no allocation per event.
  @inlinable
  public func max(by areIncreasing: @escaping (Event, Event) -> Bool) -> some EventProducerType<Event> {
    extremum { candidate, kept in areIncreasing(kept, candidate) }
  }

  /// The event kept at the end: the first one, replaced by each later one that `replaces` it.
  @inlinable
  func extremum(
    replacing replaces: @escaping (_ candidate: Event, _ kept: Event) -> Bool
  ) -> Aggregate<Self, Event?, Event> {
    Aggregate(
      self,
      initial: nil,
      step: { kept, event in
        if let current = kept, !replaces(event, current) { return nil }
        kept = event
        return nil
      },
      result: { $0 }
    )
  }
}

extension EventProducerType where Event: Comparable {
  /// At the end, the smallest event each observer saw, then the end: `min(by: <)`.
  ///
  /// ```swift
  /// temperatures.min().observe { print($0) }   // 21, 19, 20, end → 19
  /// ```
  /// - Returns: a lazy producer of at most one event then the end; no allocation per event.
  @inlinable
  public func min() -> some EventProducerType<Event> {
    min(by: <)
  }

  /// At the end, the largest event each observer saw, then the end: `max(by: <)`.
  ///
  /// ```swift
  /// temperatures.max().observe { print($0) }   // 21, 19, 20, end → 21
  /// ```
  /// - Returns: a lazy producer of at most one event then the end; no allocation per event.
  @inlinable
  public func max() -> some EventProducerType<Event> {
    max(by: <)
  }
}
