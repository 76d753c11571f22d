extension EventProducer {
  /// A cold producer of one event: each observer receives `event`, then `registered`, then the end,
  /// during `observe`, on the observing thread (Rx's and Combine's `Just`): `from(CollectionOfOne(event))`.
  ///
  /// ```swift
  /// EventProducer.just(1).observe { print($0) } finished: { print("done") }   // 1, done
  /// ```
  /// See <doc:CreationGuide>.
  /// - Returns: a producer whose `replayLength` is 1; the disposable it returns is already disposed.
  @inlinable
  public static func just(_ event: Event) -> FromSequence<CollectionOfOne<Event>> {
    FromSequence(elements: CollectionOfOne(event))
  }
}
