/// The single observer of a `combineLatest` observation's serializer: it owns the tuple of the
/// latest events and the state, and calls the observer. The serializer never calls it
/// concurrently, so it needs no lock, and the observer is called with no lock held. Released (with
/// the observer and the latest events) when the observation is disposed.
@usableFromInline
final class CombineLatestSink<Event> {
  /// The latest event of each upstream, initialized element by element (see `slots`).
  @usableFromInline let tuple: UnsafeMutablePointer<Event>
  @usableFromInline let slots: [CombineLatestSlot]
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var machine: CombineLatestStateMachine
  @usableFromInline let observer: (Event) -> Void
  @usableFromInline let finished: (() -> Void)?
  /// Set to `nil` once called.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @usableFromInline let inbox: Inbox<Int>

  @inlinable
  init(slots: [CombineLatestSlot], inbox: Inbox<Int>, observer: EventObserver<Event>) {
    tuple = .allocate(capacity: 1)
    self.slots = slots
    self.inbox = inbox
    machine = CombineLatestStateMachine(sourceCount: slots.count)
    self.observer = observer.event
    self.finished = observer.finished
    self.registered = observer.registered
  }

  deinit {
    for slot in slots { slot.clear(UnsafeMutableRawPointer(tuple)) }
    tuple.deallocate()
  }

  @inlinable
  func receive(_ position: Int) {
    guard position >= 0 else { return receiveMarker(position) }
    let isItsFirst = slots[position].storeNext(UnsafeMutableRawPointer(tuple))
    if machine.eventStored(isItsFirst: isItsFirst) {
      observer(tuple.pointee)
    }
  }

  /// The end of a source's registration, or a source's end.
  @inlinable
  func receiveMarker(_ marker: Int) {
    if marker == CombineLatestStateMachine.registeredMarker {
      if machine.sourceRegistered() {
        let registered = self.registered
        self.registered = nil
        registered?()
      }
      return
    }
    // Every event of that source is stored before its end: the source's events go into the
    // serializer in its order, its end after them.
    let hadSent = slots[CombineLatestStateMachine.position(ofEnded: marker)].hasSent()
    if machine.sourceEnded(hadSent: hadSent) { inbox.end(registered: registered, finished: finished) }
  }
}
