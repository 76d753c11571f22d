extension EventProducerType {
  /// At the end, the number of events each observer saw (the replay included), then the end; 0 for
  /// an empty stream.
  ///
  /// ```swift
  /// clicks.count().observe { print($0) }   // a, b, c, end → 3
  /// ```
  /// See <doc:AggregatesGuide>.
  /// - Returns: a lazy producer of one event then the end; no allocation per event.
  @inlinable
  public func count() -> some EventProducerType<Int> {
    Aggregate(
      self,
      initial: 0,
      step: { count, _ in
        count += 1
        return nil
      },
      result: { $0 }
    )
  }
}
