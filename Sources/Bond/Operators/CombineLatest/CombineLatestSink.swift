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
  @usableFromInline let registered: () -> Void

  @inlinable
  init(slots: [CombineLatestSlot], observer: @escaping (Event) -> Void, registered: @escaping () -> Void) {
    tuple = .allocate(capacity: 1)
    self.slots = slots
    machine = CombineLatestStateMachine(sourceCount: slots.count)
    self.observer = observer
    self.registered = registered
  }

  deinit {
    for slot in slots { slot.clear(UnsafeMutableRawPointer(tuple)) }
    tuple.deallocate()
  }

  @inlinable
  func receive(_ position: Int) {
    guard position != CombineLatestStateMachine.registeredMarker else {
      if machine.sourceRegistered() { registered() }
      return
    }
    let isItsFirst = slots[position].storeNext(UnsafeMutableRawPointer(tuple))
    if machine.eventStored(isItsFirst: isItsFirst) {
      observer(tuple.pointee)
    }
  }
}
