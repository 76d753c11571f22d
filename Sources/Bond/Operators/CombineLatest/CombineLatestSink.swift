/// The per-event part of a `combineLatest` observation's sink, not generic (``CombineLatestSink``
/// adds the tuple's type): the state and the call that delivers the tuple. An upstream's event
/// closure, specialized for its own event type, reaches it on the inbox's direct path through a
/// reference of this type and calls ``eventStored(isItsFirst:)``, a final method inlined into the
/// closure: no virtual call, no retain.
@usableFromInline
class CombineLatestSinkBase: TupleDirectSink {
  /// Touched only by the sink's serialized calls, one at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline final var machine: CombineLatestStateMachine
  /// Calls the observer with the tuple: made where `Event` is concrete (``CombineLatestSink``), so
  /// that the tuple is copied with specialized code.
  @usableFromInline final let deliverLatest: () -> Void

  @inlinable
  init(sourceCount: Int, base: UnsafeMutableRawPointer, deliverLatest: @escaping () -> Void) {
    machine = CombineLatestStateMachine(sourceCount: sourceCount)
    self.deliverLatest = deliverLatest
    super.init(base: base, buffersEvents: false)
  }

  /// An upstream's event is in the tuple (`isItsFirst`: its first): delivers the tuple once every
  /// upstream has sent. Called holding the inbox's rights (its observer, or the direct path).
  @inlinable @inline(__always)
  final func eventStored(isItsFirst: Bool) {
    if machine.eventStored(isItsFirst: isItsFirst) == .deliverTuple { deliverLatest() }
  }

  @inlinable
  override func receiveDirect(_ position: Int, isItsFirst: Bool) {
    eventStored(isItsFirst: isItsFirst)
  }

  /// The event closure of the upstream at `position` (``TupleSource``; `sink` is a
  /// `CombineLatestSinkBase`, one whose events are not buffered): with the inbox idle, nothing of this
  /// upstream is queued, so the event is its next one: stored into the tuple and the sink called at
  /// once (``InboxLink/deliverIfIdle(_:)``); else queued and its position sent into the inbox.
  /// Made where `Value` is concrete: the closure is specialized for it, and the sink's per-event
  /// work inlined into it.
  @inlinable
  static func eventClosure<Value>(
    _ position: Int,
    _ inbox: Inbox<Int>,
    _ sink: TupleDirectSink,
    _ queue: TupleQueue<Value>
  ) -> (Value) -> Void {
    let link = InboxLink(inbox, sink: unsafeDowncast(sink, to: CombineLatestSinkBase.self))
    return { event in
      if !link.deliverIfIdle({ $0.eventStored(isItsFirst: queue.store(event, in: $0.base)) }) {
        queue.push(event)
        link.next(position)
      }
    }
  }
}

/// The single observer of a `combineLatest` observation's inbox: it owns the tuple of the latest
/// events and the state, and calls the observer. The inbox never calls it concurrently, so it needs
/// no lock, and the observer is called with no lock held. Released (with the observer and the
/// latest events) when the observation is disposed.
@usableFromInline
final class CombineLatestSink<Event>: CombineLatestSinkBase, TupleSink {
  @usableFromInline let output: InboxSinkOutput<Event, Int>
  @usableFromInline let tuple: TupleStorage<Event>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?

  @inlinable
  init(slots: [TupleSlot], inbox: Inbox<Int>, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    let tuple = TupleStorage<Event>(slots: slots)
    self.tuple = tuple
    registered = observer.registered
    let (event, pointer) = (observer.event, tuple.pointer)
    super.init(sourceCount: slots.count, base: tuple.base, deliverLatest: { event(pointer.pointee) })
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
    eventStored(isItsFirst: tuple.slots[position].storeNext(tuple.base))
  }

  /// The end of a source's registration, or a source's end.
  @inlinable
  func receiveMarker(_ marker: Int) {
    if marker == TupleMarkers.registered {
      if machine.sourceRegistered() == .callRegistered { callRegistered() }
      return
    }
    // Every event of that source is stored before its end: the source's events go into the
    // inbox in its order, its end after them.
    let hadSent = tuple.slots[TupleMarkers.position(ofEnded: marker)].hasSent()
    if machine.sourceEnded(hadSent: hadSent) == .end { end() }
  }
}
