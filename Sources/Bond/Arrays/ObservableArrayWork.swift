/// What an ``ObservableArray`` queues, in mutation order, for its hand-off thread: operations
/// (their events are built by the hand-off thread, on the array it owns, so the live array is
/// never shared with an event in flight and a mutation never copies it) and observation starts.
@usableFromInline
enum ObservableArrayWork<Element> {
  /// A mutation's operation.
  case operation(ObservableArrayOperation<Element>)
  /// The start of observation `token`, which receives a `.reset` of the array at this point.
  case replay(token: Int)
  /// The start of observation `token`, which took its snapshot itself (no replay).
  case start(token: Int)
  /// A `flush()`: passed on to the delivery producer's queue, where it resumes the waiting task
  /// once the events before it are delivered.
  case barrier(DeliveryWaiter)
}
