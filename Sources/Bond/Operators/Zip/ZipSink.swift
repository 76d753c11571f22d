/// The single observer of a `zip` observation's inbox: the state and the per-event work, not
/// generic (``ZipSink`` adds the tuple's type), so that its code is compiled once, optimized, and
/// reached on the direct path through the base class without a generic (unspecialized) body. It
/// calls the observer with no lock held.
@usableFromInline
class ZipSinkBase: TupleDirectSink {
  /// Each source's queue, unretained (the tuple's slots hold them for the sink's life): the tuple
  /// holds each source's oldest unmatched event (`isSet`), its queue the later ones, which
  /// ``TupleQueueBase/moveNext`` moves into the tuple in turn. A call retains nothing.
  @usableFromInline let queues: UnsafeMutableBufferPointer<Unmanaged<TupleQueueBase>>
  /// Moves the tuple out and calls the observer with it (made where `Event` is concrete).
  @usableFromInline let moveTupleOut: () -> Void
  @usableFromInline let inbox: Inbox<Int>
  @usableFromInline let finished: (() -> Void)?
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine: ZipStateMachine
  /// Flow control (a `.backpressure` stage downstream): each source's gate, and the stage's gate
  /// they depend on. Set once, before the first event.
  @exclusivity(unchecked) @usableFromInline var sourceGates: [FlowGate]?
  @usableFromInline let stagePressure: FlowGate?
  /// Which sources this sink holds back (too many of their events unmatched).
  @exclusivity(unchecked) @usableFromInline var heldBack: [Bool]

  @inlinable
  init(
    slots: [TupleSlot],
    base: UnsafeMutableRawPointer,
    inbox: Inbox<Int>,
    observer: (registered: (() -> Void)?, finished: (() -> Void)?, pressure: FlowGate?),
    moveTupleOut: @escaping () -> Void
  ) {
    queues = .allocate(capacity: slots.count)
    _ = queues.initialize(from: slots.lazy.map { .passUnretained($0.queue) })
    self.moveTupleOut = moveTupleOut
    self.inbox = inbox
    finished = observer.finished
    registered = observer.registered
    machine = ZipStateMachine(sourceCount: slots.count)
    stagePressure = observer.pressure
    heldBack = Array(repeating: false, count: slots.count)
    super.init(base: base, buffersEvents: true)
  }

  deinit {
    queues.deallocate()
    machine.deallocate()
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
  final func hold(back sourceGates: [FlowGate]) {
    self.sourceGates = sourceGates
  }

  /// After `position`'s event was queued, under flow control: holds the source back at the limit.
  // Out of line: the path of an event that completes no tuple keeps no register for it.
  @inlinable @inline(never)
  final func holdBackIfFull(_ position: Int) {
    guard let sourceGates, !heldBack[position], machine.pending(position) >= Self.unmatchedLimit else { return }
    heldBack[position] = true
    sourceGates[position].raise()
  }

  /// After a tuple: lets go of the sources back down to half of the limit.
  @inlinable
  final func releaseDrained(gates: [FlowGate]) {
    for position in gates.indices where heldBack[position] && machine.pending(position) <= Self.unmatchedLimit / 2 {
      heldBack[position] = false
      gates[position].release()
    }
  }

  /// `position`'s event was queued: moved into the tuple if it is its source's oldest unmatched one.
  @inlinable
  final func receive(_ position: Int) {
    guard position >= 0 else { return receiveMarker(position) }
    let isOldest = !machine.hasUnmatched(position)
    if isOldest && !machine.hasEnded { moveNext(position) }
    received(position)
  }

  /// The direct path: `position`'s event is in the tuple (`isItsFirst`) or queued behind its
  /// source's oldest unmatched one.
  @inlinable
  final override func receiveDirect(_ position: Int, isItsFirst: Bool) {
    received(position)
  }

  @inlinable
  final func moveNext(_ position: Int) {
    queues[position]._withUnsafeGuaranteedRef { $0.moveNext($0, base) }
  }

  /// `position`'s event is in the tuple or queued: when the tuple is complete, moves it out to the
  /// observer (``deliverTuple()``).
  // Always inlined (into `receiveDirect` and `receive`): an event that completes no tuple, one in
  // two when the sources alternate, costs the count's update and this test.
  @inlinable @inline(__always)
  final func received(_ position: Int) {
    if case .takeTuple = machine.eventQueued(position: position) { return deliverTuple() }
    if sourceGates != nil { holdBackIfFull(position) }
  }

  /// Every source has an event in the tuple: moves the tuple out to the observer, then the next
  /// unmatched event of each source into it, or ends.
  @inlinable @inline(never)
  final func deliverTuple() {
    // Every element is set: marked cleared now, moved out by `moveTupleOut` (nothing reads the
    // tuple in between).
    var queue = queues.baseAddress.unsafelyUnwrapped
    let end = queue + queues.count
    repeat {  // two or more
      queue.pointee._withUnsafeGuaranteedRef { $0.isSet = false }
      queue += 1
    } while queue != end
    let action = machine.tupleDelivered()
    if let sourceGates { releaseDrained(gates: sourceGates) }
    moveTupleOut()
    switch action {
    case .nothingMore: return
    case .moveNext:
      // The sources with more unmatched events: the next of each into the tuple.
      for index in queues.indices where machine.hasUnmatched(index) { moveNext(index) }
    case .end: inbox.end(registered: registered, finished: finished)
    case .takeTuple, .callRegistered, .ignore: return  // not answers to a tuple taken
    }
  }

  @inlinable
  final func receiveMarker(_ marker: Int) {
    if marker == TupleMarkers.registered {
      if case .callRegistered = machine.sourceRegistered() {
        let registered = self.registered
        self.registered = nil
        registered?()
      }
      return
    }
    if case .end = machine.sourceEnded(position: TupleMarkers.position(ofEnded: marker)) {
      inbox.end(registered: registered, finished: finished)
    }
  }
}

/// A `zip` observation's sink: ``ZipSinkBase`` with the tuple, whose type is the observation's event.
@usableFromInline
final class ZipSink<Event>: ZipSinkBase, TupleSink {
  @usableFromInline let output: InboxSinkOutput<Event, Int>
  @usableFromInline let tuple: TupleStorage<Event>

  @inlinable
  init(slots: [TupleSlot], inbox: Inbox<Int>, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    let tuple = TupleStorage<Event>(slots: slots)
    self.tuple = tuple
    let (event, pointer) = (observer.event, tuple.pointer)
    super.init(
      slots: slots,
      base: tuple.base,
      inbox: inbox,
      observer: (observer.registered, observer.finished, observer.pressure),
      moveTupleOut: { event(pointer.move()) }
    )
  }

  deinit {
    tuple.release()
  }
}
