extension EventProducer {
  /// A cold producer with no event: each observer receives `registered`, then the end, during
  /// `observe` (Rx's `empty`, Combine's `Empty`): `from(EmptyCollection())`.
  ///
  /// ```swift
  /// EventProducer<Int>.empty().observe { print($0) } finished: { print("done") }   // done
  /// ```
  /// See <doc:CreationGuide>.
  /// - Returns: a producer whose `replayLength` is 0; the disposable it returns is already disposed.
  @inlinable
  public static func empty() -> FromSequence<EmptyCollection<Event>> {
    FromSequence(elements: EmptyCollection())
  }
}
