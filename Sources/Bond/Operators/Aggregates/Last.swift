extension EventProducerType {
  /// At the end, the last event each observer saw (the replay included), then the end; only the
  /// end for an empty stream.
  ///
  /// ```swift
  /// uploads.last().observe { print($0) } finished: { print("done") }   // a, b, end → b, done
  /// ```
  /// See <doc:AggregatesGuide>.
  /// - Returns: a lazy producer of at most one event then the end; no allocation per event.
  @inlinable
  public func last() -> some EventProducerType<Event> {
    Aggregate(
      self,
      initial: Event?.none,
      step: { last, event in
        last = event
        return nil
      },
      result: { $0 }
    )
  }
}
