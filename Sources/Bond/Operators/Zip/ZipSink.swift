/// The single observer of a `zip` observation's serializer: it owns the tuple being delivered and
/// the state, and calls the observer with no lock held.
@usableFromInline
final class ZipSink<Event> {
  @usableFromInline let tuple: UnsafeMutablePointer<Event>
  @usableFromInline let slots: [CombineLatestSlot]
  @exclusivity(unchecked) @usableFromInline var machine: ZipStateMachine
  @usableFromInline let observer: (Event) -> Void
  @usableFromInline let finished: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @usableFromInline let inbox: Inbox<Int>

  @inlinable
  init(slots: [CombineLatestSlot], inbox: Inbox<Int>, observer: EventObserver<Event>) {
    tuple = .allocate(capacity: 1)
    self.slots = slots
    self.inbox = inbox
    machine = ZipStateMachine(sourceCount: slots.count)
    self.observer = observer.event
    self.finished = observer.finished
    self.registered = observer.registered
  }

  deinit {
    tuple.deallocate()
  }

  @inlinable
  func receive(_ position: Int) {
    guard position >= 0 else { return receiveMarker(position) }
    guard machine.eventQueued(position: position) else { return }
    let base = UnsafeMutableRawPointer(tuple)
    for slot in slots { _ = slot.storeNext(base) }
    let value = tuple.move()
    for slot in slots { slot.markCleared() }
    let ends = machine.tupleDelivered()
    observer(value)
    if ends { inbox.end(registered: registered, finished: finished) }
  }

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
    if machine.sourceEnded(position: CombineLatestStateMachine.position(ofEnded: marker)) {
      inbox.end(registered: registered, finished: finished)
    }
  }
}
