import Synchronization

/// What a tuple operator's sink reaches of an upstream's ``TupleQueue`` without knowing its type:
/// ``isSet`` and ``moveNext``, made where the type is concrete, a `let` read through an unretained
/// reference, so that `zip`'s non-generic core calls it retaining nothing.
@usableFromInline
class TupleQueueBase {
  /// Whether the upstream's element of the tuple is initialized. Touched only by the serializer's
  /// observer (or the direct path, holding its rights), one call at a time: the runtime exclusivity
  /// check is skipped (it costs more than the rest of an event).
  @exclusivity(unchecked) @usableFromInline final var isSet = false
  /// Moves the oldest pushed event of the given queue (this one) into the tuple at the given
  /// address, whose element is not set (``TupleQueue/storeNext(in:)``). Takes the queue as an
  /// argument rather than capturing it: no reference cycle, no context to retain.
  @usableFromInline let moveNext: (TupleQueueBase, UnsafeMutableRawPointer) -> Void

  @inlinable
  init(moveNext: @escaping (TupleQueueBase, UnsafeMutableRawPointer) -> Void) {
    self.moveNext = moveNext
  }
}

/// The events an upstream sent that the serializer has not delivered yet, and where the latest one
/// lives in the tuple.
///
/// A queue with one producer at a time (the upstream's delivery, serialized by the upstream) and
/// one consumer at a time (the serializer's observer): a ring of ``ringCapacity`` events handed
/// over with a release store and an acquire load, no lock. When the ring is full (the observer is
/// far behind), events go to a locked overflow queue; while the overflow holds events, every new
/// event goes there too, so the order is kept: the consumer takes the ring's (older) events first.
@usableFromInline
final class TupleQueue<Value>: TupleQueueBase {
  // Thread safety: `ring` slots are written by the producer before it publishes them with `tail`
  // (releasing) and read by the consumer after it sees them (acquiring), and handed back the same
  // way with `head`; `isSet` is the consumer's; `overflow` is a `LockedState`.

  /// Events in the ring; a power of two.
  @inlinable static var ringCapacity: Int { 8 }

  /// The byte offset of this upstream's element in the tuple.
  @usableFromInline let offset: Int
  @usableFromInline let ring: UnsafeMutablePointer<Value>
  /// The count of events popped (written by the consumer) and pushed (by the producer).
  @usableFromInline let head = Atomic<Int>(0)
  @usableFromInline let tail = Atomic<Int>(0)
  /// Events pushed while the ring was full, and whether there are any (set by the producer and
  /// cleared by the consumer, both under the overflow's lock).
  @usableFromInline let overflow = LockedState(WorkQueue<Value>())
  @usableFromInline let overflowing = Atomic<Bool>(false)

  @inlinable
  init(offset: Int) {
    self.offset = offset
    ring = .allocate(capacity: Self.ringCapacity)
    super.init { queue, base in _ = unsafeDowncast(queue, to: TupleQueue<Value>.self).storeNext(in: base) }
  }

  deinit {
    var index = head.load(ordering: .acquiring)
    let end = tail.load(ordering: .acquiring)
    while index != end {
      (ring + (index & (Self.ringCapacity - 1))).deinitialize(count: 1)
      index &+= 1
    }
    ring.deallocate()
  }

  /// Called by the upstream's delivery (one at a time).
  @inlinable
  func push(_ value: Value) {
    // Relaxed: only the producer sets it, and it sees its own last write or the consumer's later
    // clear, which happens only once the overflow is empty.
    if !overflowing.load(ordering: .relaxed) {
      let count = tail.load(ordering: .relaxed)  // the producer's own counter
      // acquiring: the consumer has finished moving out of the slot it handed back.
      if count &- head.load(ordering: .acquiring) < Self.ringCapacity {
        (ring + (count & (Self.ringCapacity - 1))).initialize(to: value)
        tail.store(count &+ 1, ordering: .releasing)  // publishes the slot
        return
      }
    }
    overflow.withLock { queue in
      queue.push(value)
      overflowing.store(true, ordering: .relaxed)
    }
  }

  /// Called by the serializer's observer (one at a time), once per event pushed.
  @inlinable
  func pop() -> Value {
    let count = head.load(ordering: .relaxed)  // the consumer's own counter
    // acquiring: the producer's write of the slot happens before.
    if tail.load(ordering: .acquiring) != count {
      let value = (ring + (count & (Self.ringCapacity - 1))).move()
      head.store(count &+ 1, ordering: .releasing)  // hands the slot back
      return value
    }
    // The ring is empty, so this event is the overflow's oldest.
    return overflow.withLock { queue in
      let value = queue.pop().unsafelyUnwrapped
      if queue.isEmpty { overflowing.store(false, ordering: .relaxed) }
      return value
    }
  }

  /// Moves the oldest pushed event into the tuple at `base`.
  /// - Returns: true when it is the upstream's first event.
  @inlinable
  func storeNext(in base: UnsafeMutableRawPointer) -> Bool {
    store(pop(), in: base)
  }

  /// Moves `value` into the tuple at `base` (the serializer's observer, or the direct path: with
  /// the inbox idle, nothing is queued, so `value` is the upstream's next event).
  /// - Returns: true when it is the upstream's first event.
  @inlinable
  func store(_ value: Value, in base: UnsafeMutableRawPointer) -> Bool {
    // The tuple's memory is bound to the tuple type, whose element at `offset` is a `Value`.
    // Assigned outside any lock: releasing the previous event may run a deinit.
    let element = (base + offset).assumingMemoryBound(to: Value.self)
    if isSet {
      element.pointee = value
      return false
    }
    element.initialize(to: value)
    isSet = true
    return true
  }

  @inlinable
  func clear(in base: UnsafeMutableRawPointer) {
    guard isSet else { return }
    (base + offset).assumingMemoryBound(to: Value.self).deinitialize(count: 1)
    isSet = false
  }
}
