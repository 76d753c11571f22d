extension EventProducerType {
  /// `true` as soon as an event satisfies `predicate` (then the end, and the upstream is no longer
  /// observed), or `false` at the end if none did; `false` for an empty stream.
  ///
  /// ```swift
  /// statuses.contains(where: { $0 >= 500 }).observe { print($0) }   // 200, 503 → true (at 503)
  /// ```
  /// See <doc:AggregatesGuide>.
  /// - Parameter predicate: asked about each event, on the delivering thread, until it holds.
  /// - Returns: a lazy producer of one event then the end; no allocation per event.
  @inlinable
  public func contains(where predicate: @escaping (Event) -> Bool) -> some EventProducerType<Bool> {
    Aggregate(self, initial: (), step: { _, event in predicate(event) ? true : nil }, result: { _ in false })
  }
}

extension EventProducerType where Event: Equatable {
  /// `true` as soon as an event equals `event` (then the end, and the upstream is no longer
  /// observed), or `false` at the end: `contains(where: { $0 == event })`.
  ///
  /// ```swift
  /// keys.contains("q").observe { print($0) }   // "a", "q" → true (at "q")
  /// ```
  /// - Returns: a lazy producer of one event then the end; no allocation per event.
  @inlinable
  public func contains(_ event: Event) -> some EventProducerType<Bool> {
    contains(where: { $0 == event })
  }
}
