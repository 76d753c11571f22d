import Synchronization

/// Debugging aids: counters for leak checks in your own tests.
///
/// ```swift
/// let before = BondDebug.liveObservationCount
/// runTheFeature()
/// #expect(BondDebug.liveObservationCount == before)   // everything it observed was disposed
/// ```
/// - Note: thread-safe.
public enum BondDebug {
  /// The number of observations of `EventProducer`s (and so of `Observable`s, `ObservableArray`s
  /// and every operator chain, which observe producers underneath) that are registered and not
  /// ended: not disposed, and their producer not deallocated. One chain observation counts once per
  /// producer it observes (a `combineLatest` of two producers also observes its private serializer).
  /// For one producer, see its `observerCount`.
  public static var liveObservationCount: Int {
    liveObservations.load(ordering: .relaxed)
  }
}
