/// The single observer of a `zip` observation's inbox: it owns the tuple being delivered and the
/// state, and calls the observer with no lock held.
@usableFromInline
final class ZipSink<Event>: TupleSink {
  @usableFromInline let output: InboxSinkOutput<Event, Int>
  @usableFromInline let tuple: TupleStorage<Event>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine: ZipStateMachine

  @inlinable
  init(slots: [CombineLatestSlot], inbox: Inbox<Int>, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    tuple = TupleStorage(slots: slots)
    registered = observer.registered
    machine = ZipStateMachine(sourceCount: slots.count)
  }

  deinit { tuple.release() }

  @inlinable
  func receive(_ position: Int) {
    guard position >= 0 else { return receiveMarker(position) }
    guard machine.eventQueued(position: position) else { return }
    // Every upstream has an event queued: move the n-th of each into the tuple, then out of it.
    // By index, not `for slot in`: copying a slot out of the array retains its four closures.
    let slots = tuple.slots
    for index in slots.indices { _ = slots[index].storeNext(tuple.base) }
    let value = tuple.pointer.move()
    for index in slots.indices { slots[index].markCleared() }
    let ends = machine.tupleDelivered()
    output.observer(value)
    if ends { end() }
  }

  @inlinable
  func receiveMarker(_ marker: Int) {
    if marker == CombineLatestStateMachine.registeredMarker {
      if machine.sourceRegistered() { callRegistered() }
      return
    }
    if machine.sourceEnded(position: CombineLatestStateMachine.position(ofEnded: marker)) { end() }
  }
}
