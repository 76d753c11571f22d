/// The single observer of a `combineLatest` observation's inbox: it owns the tuple of the latest
/// events and the state, and calls the observer. The inbox never calls it concurrently, so it needs
/// no lock, and the observer is called with no lock held. Released (with the observer and the
/// latest events) when the observation is disposed.
@usableFromInline
final class CombineLatestSink<Event>: TupleDirectSink, TupleSink {
  @usableFromInline let output: InboxSinkOutput<Event, Int>
  @usableFromInline let tuple: TupleStorage<Event>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine: CombineLatestStateMachine
  /// Calls the observer with the tuple: made where `Event` is concrete, so that
  /// ``receiveDirect(_:isItsFirst:)``, reached through the base class on the direct path (where the
  /// code is not specialized for `Event`), copies the tuple with specialized code.
  @usableFromInline let deliverLatest: () -> Void

  @inlinable
  init(slots: [TupleSlot], inbox: Inbox<Int>, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    tuple = TupleStorage(slots: slots)
    registered = observer.registered
    machine = CombineLatestStateMachine(sourceCount: slots.count)
    let (observer, pointer) = (output.observer, tuple.pointer)
    deliverLatest = { observer(pointer.pointee) }
    super.init(base: tuple.base, buffersEvents: false)
  }

  deinit { tuple.release() }

  /// Keeps one latest value per source: nothing to bound.
  @inlinable
  static var boundsUnmatched: Bool { false }

  @inlinable
  func hold(back sourceGates: [FlowGate]) {}

  @inlinable
  func receive(_ position: Int) {
    guard position >= 0 else { return receiveMarker(position) }
    receiveDirect(position, isItsFirst: tuple.slots[position].storeNext(tuple.base))
  }

  /// `position`'s event is in the tuple: delivers the tuple once every source has sent.
  @inlinable
  override func receiveDirect(_ position: Int, isItsFirst: Bool) {
    if machine.eventStored(isItsFirst: isItsFirst) { deliverLatest() }
  }

  /// The end of a source's registration, or a source's end.
  @inlinable
  func receiveMarker(_ marker: Int) {
    if marker == TupleMarkers.registered {
      if machine.sourceRegistered() { callRegistered() }
      return
    }
    // Every event of that source is stored before its end: the source's events go into the
    // inbox in its order, its end after them.
    let hadSent = tuple.slots[TupleMarkers.position(ofEnded: marker)].hasSent()
    if machine.sourceEnded(hadSent: hadSent) { end() }
  }
}
