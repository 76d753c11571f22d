extension EventProducerType {
  /// The running accumulation after each event, starting from `initial` for each observer: the Rx
  /// and Combine name of ``EventProducerType/reduce(_:_:)``, with the same result type (``Reduce``).
  ///
  /// ```swift
  /// numbers.scan(0, +).observe { print($0) }   // 1, 2, 3 → 1, 3, 6
  /// ```
  /// - Parameters:
  ///   - initial: the accumulation before the first event; not delivered itself.
  ///   - combine: called once per event per observer, on the delivering thread.
  /// - Returns: a lazy producer with the same replay length; no allocation per event.
  @inlinable
  public func scan<Output>(_ initial: Output, _ combine: @escaping (Output, Event) -> Output) -> Reduce<Self, Output> {
    reduce(initial, combine)
  }
}
