extension EventProducerType {
  /// `false` as soon as an event fails `predicate` (then the end, and the upstream is no longer
  /// observed), or `true` at the end if every event satisfied it; `true` for an empty stream.
  ///
  /// ```swift
  /// checks.allSatisfy { $0.passed }.observe { print($0) }   // pass, pass, end → true
  /// ```
  /// See <doc:AggregatesGuide>.
  /// - Parameter predicate: asked about each event, on the delivering thread, until it fails.
  /// - Returns: a lazy producer of one event then the end; no allocation per event.
  @inlinable
  public func allSatisfy(_ predicate: @escaping (Event) -> Bool) -> some EventProducerType<Bool> {
    Aggregate(self, initial: (), step: { _, event in predicate(event) ? nil : false }, result: { _ in true })
  }
}
