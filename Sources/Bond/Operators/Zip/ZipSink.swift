/// The single observer of a `zip` observation's inbox: it owns the tuple being delivered and the
/// state, and calls the observer with no lock held.
@usableFromInline
final class ZipSink<Event>: TupleDirectSink, TupleSink {
  @usableFromInline let output: InboxSinkOutput<Event, Int>
  @usableFromInline let tuple: TupleStorage<Event>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine: ZipStateMachine
  /// Flow control (a `.backpressure` stage downstream): each source's gate, and the stage's gate
  /// they depend on. Set once, before the first event.
  @exclusivity(unchecked) @usableFromInline var sourceGates: [FlowGate]?
  @usableFromInline let stagePressure: FlowGate?
  /// Which sources this sink holds back (too many of their events unmatched).
  @exclusivity(unchecked) @usableFromInline var heldBack: [Bool]
  /// Moves the tuple out and calls the observer with it: made where `Event` is concrete, so that
  /// ``receive(_:)``, reached through the base class on the direct path (where the code is not
  /// specialized for `Event`), moves the tuple with specialized code.
  @usableFromInline let deliverTuple: () -> Void

  @inlinable
  init(slots: [TupleSlot], inbox: Inbox<Int>, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    tuple = TupleStorage(slots: slots)
    registered = observer.registered
    machine = ZipStateMachine(sourceCount: slots.count)
    stagePressure = observer.pressure
    heldBack = Array(repeating: false, count: slots.count)
    let (observer, pointer) = (output.observer, tuple.pointer)
    deliverTuple = { observer(pointer.move()) }
    super.init(base: tuple.base, buffersEvents: true)
  }

  deinit {
    tuple.release()
    // The observation is over: its sources are no longer held back, by it or by the stage.
    if let sourceGates {
      for (position, gate) in sourceGates.enumerated() {
        if heldBack[position] { gate.release() }
        stagePressure?.removeDependent(gate)
      }
    }
  }

  /// Holds at most this many unmatched events of a source before putting it under pressure (when
  /// a `.backpressure` stage is downstream); released at half of it.
  @inlinable
  static var unmatchedLimit: Int { 1_024 }

  @inlinable
  static var boundsUnmatched: Bool { true }

  @inlinable
  func hold(back sourceGates: [FlowGate]) {
    self.sourceGates = sourceGates
  }

  /// After `position`'s event was queued: holds the source back at the limit.
  @inlinable
  func holdBackIfFull(_ position: Int, gates: [FlowGate]) {
    guard !heldBack[position], machine.pending[position] >= Self.unmatchedLimit else { return }
    heldBack[position] = true
    gates[position].raise()
  }

  /// After a tuple: lets go of the sources back down to half of the limit.
  @inlinable
  func releaseDrained(gates: [FlowGate]) {
    for position in gates.indices where heldBack[position] && machine.pending[position] <= Self.unmatchedLimit / 2 {
      heldBack[position] = false
      gates[position].release()
    }
  }

  @inlinable
  func receive(_ position: Int) {
    guard position >= 0 else { return receiveMarker(position) }
    guard machine.eventQueued(position: position) else {
      if let sourceGates { holdBackIfFull(position, gates: sourceGates) }
      return
    }
    // Every upstream has an event queued: move the n-th of each into the tuple, then out of it.
    // By index, not `for slot in`: copying a slot out of the array retains its four closures.
    let slots = tuple.slots
    for index in slots.indices { _ = slots[index].storeNext(tuple.base) }
    // Marked cleared now, moved out by `deliverTuple` (nothing reads the tuple in between).
    for index in slots.indices { slots[index].markCleared() }
    let ends = machine.tupleDelivered()
    if let sourceGates { releaseDrained(gates: sourceGates) }
    deliverTuple()
    if ends { end() }
  }

  /// The direct path: `position`'s event was queued, as for ``receive(_:)``.
  @inlinable
  override func receiveDirect(_ position: Int, isItsFirst: Bool) {
    receive(position)
  }

  @inlinable
  func receiveMarker(_ marker: Int) {
    if marker == TupleMarkers.registered {
      if machine.sourceRegistered() { callRegistered() }
      return
    }
    if machine.sourceEnded(position: TupleMarkers.position(ofEnded: marker)) { end() }
  }
}
