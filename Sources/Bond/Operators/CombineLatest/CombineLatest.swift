import Synchronization

/// The result of ``combineLatest(_:_:)`` (and its overloads for more producers) and
/// ``EventProducerType/combineLatestWith(_:)``: tuples of the latest events of several producers.
///
/// Nothing is delivered until every upstream has sent; then each event of any upstream delivers
/// one tuple of the latest event of each. What the upstreams send concurrently is serialized:
/// tuples are delivered one at a time, a component never goes back to an older event of its
/// upstream, and the last tuple holds the last event of each upstream.
///
/// A lazy value: each observation observes every upstream once, in order. It does not keep the
/// upstreams alive (the value does, like every operator). `registered` is forwarded once every
/// upstream has finished registering.
///
/// `Event` is the flat tuple `(P1.Event, P2.Event, ...)` of the upstreams' events. One N-ary core
/// serves every arity; see "The entry points" in `CombineLatest.swift` for how it is built so that
/// everything it does per event is specialized for the upstreams' types.
///
/// How: each observation keeps the latest events in one tuple of storage, written element by
/// element. Each upstream's events go into a queue of their own type and their position goes into a
/// private `EventProducer<Int>` (lossless, serialized, reentrancy-safe), whose single observer
/// moves the event into the tuple and delivers the tuple. No allocation per event.
/// - Note: thread-safe: the upstreams may send from any threads at once.
public struct CombineLatest<Event>: EventProducerType {
  /// The combined producers, in order, each behind closures made for its own type.
  @usableFromInline let sources: [CombineLatestSource]

  @inlinable
  init(sources: [CombineLatestSource]) {
    self.sources = sources
  }

  /// The last upstream's replay length when every upstream replays something, else 0: the
  /// upstreams are observed in order, so only the last one's replay can complete tuples.
  @inlinable
  public var replayLength: Int {
    let lengths = sources.map { $0.replayLength() }
    return lengths.contains(0) ? 0 : lengths.last ?? 0
  }

  /// Observes every upstream; delivers a tuple once all have sent, then one per event.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes every upstream; calls `registered` once all of them have finished registering
  /// (after the tuples that their replays complete).
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void, registered: @escaping () -> Void) -> any DisposableType {
    var layout = TupleLayout()
    let parts = sources.map { $0.makeSlot(&layout) }
    precondition(
      layout.size == MemoryLayout<Event>.size && layout.alignment == MemoryLayout<Event>.alignment,
      "combineLatest: the tuple layout differs from the compiler's")
    let serializer = EventProducer<Int>()
    let sink = CombineLatestSink(slots: parts.map(\.slot), observer: observer, registered: registered)
    // The inbox goes first: disposing it stops the deliveries (waiting for one in flight on
    // another thread) and releases the observer and the latest events; then the upstreams are let go.
    let disposables = CompositeDisposable([serializer.observe { sink.receive($0) }])
    for (position, part) in parts.enumerated() {
      disposables.add(part.observe(position, serializer))
    }
    return disposables
  }
}

/// One upstream of a `combineLatest`, behind closures made where its type is concrete (so they
/// are specialized for it, unlike code in a loop over a parameter pack or in a generic class's
/// overridden methods).
@usableFromInline
struct CombineLatestSource {
  /// Observes the upstream: each event is queued and the given position sent into the serializer;
  /// so is the end of its registration (as ``CombineLatestStateMachine/registeredMarker``).
  @usableFromInline typealias Observe = (_ position: Int, _ serializer: EventProducer<Int>) -> any DisposableType

  /// The upstream's replay length.
  @usableFromInline let replayLength: () -> Int
  /// Places the upstream's element at the next offset of `layout`; makes its slot (which the
  /// observation keeps) and the function that observes the upstream into it (used once: it holds
  /// the upstream, which the observation must not keep alive).
  @usableFromInline let makeSlot: (inout TupleLayout) -> (slot: CombineLatestSlot, observe: Observe)

  @inlinable
  init<Upstream: EventProducerType>(_ upstream: Upstream) {
    replayLength = { upstream.replayLength }
    makeSlot = { layout in
      let queue = CombineLatestQueue<Upstream.Event>(offset: layout.append(Upstream.Event.self))
      let observe: Observe = { position, serializer in
        // The closures hold the serializer and the queue: they live while the upstream can send.
        upstream.observe(
          { event in
            queue.push(event)
            serializer.next(position)
          },
          registered: { serializer.next(CombineLatestStateMachine.registeredMarker) })
      }
      return (CombineLatestSlot(queue), observe)
    }
  }
}

/// One upstream's part of a `combineLatest` observation, type-erased: the closures reach its
/// ``CombineLatestQueue`` with its concrete type.
@usableFromInline
struct CombineLatestSlot {
  /// Moves the upstream's oldest queued event into the tuple at the given address.
  /// Returns true when it is the upstream's first event.
  @usableFromInline let storeNext: (UnsafeMutableRawPointer) -> Bool
  /// Deinitializes the upstream's element of the tuple at the given address, if set.
  @usableFromInline let clear: (UnsafeMutableRawPointer) -> Void

  @inlinable
  init<Value>(_ queue: CombineLatestQueue<Value>) {
    storeNext = { base in queue.storeNext(in: base) }
    clear = { base in queue.clear(in: base) }
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
final class CombineLatestQueue<Value> {
  // Thread safety: `ring` slots are written by the producer before it publishes them with `tail`
  // (releasing) and read by the consumer after it sees them (acquiring), and handed back the same
  // way with `head`; `isSet` is the consumer's; `overflow` is a `LockedState`.

  /// Events in the ring; a power of two.
  @inlinable static var ringCapacity: Int { 8 }

  /// The byte offset of this upstream's element in the tuple.
  @usableFromInline let offset: Int
  /// Whether the element is initialized. Touched only by the serializer's observer, one call at a
  /// time: the runtime exclusivity check is skipped (it costs more than the rest of an event).
  @exclusivity(unchecked) @usableFromInline var isSet = false
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
    let value = pop()
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

// # The entry points
//
// One N-ary core, `CombineLatest<Event>` over an array of `CombineLatestSource`s, does the work for
// every arity. The free functions for 2 to 10 producers are one-line, non-variadic entry points
// into it, for two reasons found with Swift 6.3:
// - Speed. The closures that run per event must be formed where the upstreams' types are
//   concrete. The optimizer does not specialize a loop over a parameter pack (its body stays
//   generic over the element's type) nor a generic class's overridden methods, and such code
//   costs thousands of instructions per event in runtime metadata lookups. A function of plain
//   generic parameters is specialized in the caller's module, and so are the closures it forms.
// - Type checking. A variadic function's pack cannot be inferred together with a closure in the
//   same expression (`combineLatest(a, b).map { x, y in ... }` does not type-check against
//   `combineLatest(_:_:_: repeat each P)`), and a closure's tuple parameter is destructured
//   (`{ email, pass in }`, `{ "\($0)\($1)" }`), and `$0.0` read, only when it is a plain tuple.
// The variadic function at the end serves more than 10 producers, with unspecialized closures.

/// Combines the latest events of two producers (of any types) into pairs.
///
/// ```swift
/// let email = Observable(""), pass = Observable("")
/// combineLatest(email, pass)
///   .map { email, pass in !email.isEmpty && !pass.isEmpty }
///   .observe { print("enabled: \($0)") }      // prints "enabled: false"
/// ```
///
/// Nothing is delivered until both have sent; then each event of either delivers one pair of the
/// latest event of each. Overloads take 3 to 10 producers and deliver flat tuples, and
/// ``combineLatest(_:_:_:_:_:_:_:_:_:_:_:_:)`` takes more. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType>(
  _ first: P1, _ second: P2
) -> CombineLatest<(P1.Event, P2.Event)> {
  CombineLatest(sources: [CombineLatestSource(first), CombineLatestSource(second)])
}

/// Combines the latest events of 3 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3
) -> CombineLatest<(P1.Event, P2.Event, P3.Event)> {
  CombineLatest(sources: [CombineLatestSource(first), CombineLatestSource(second), CombineLatestSource(third)])
}

/// Combines the latest events of 4 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event)> {
  CombineLatest(sources: [CombineLatestSource(first), CombineLatestSource(second), CombineLatestSource(third), CombineLatestSource(fourth)])
}

/// Combines the latest events of 5 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event)> {
  CombineLatest(sources: [CombineLatestSource(first), CombineLatestSource(second), CombineLatestSource(third), CombineLatestSource(fourth), CombineLatestSource(fifth)])
}

/// Combines the latest events of 6 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event)> {
  CombineLatest(sources: [CombineLatestSource(first), CombineLatestSource(second), CombineLatestSource(third), CombineLatestSource(fourth), CombineLatestSource(fifth), CombineLatestSource(sixth)])
}

/// Combines the latest events of 7 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType, P7: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6, _ seventh: P7
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event)> {
  CombineLatest(sources: [CombineLatestSource(first), CombineLatestSource(second), CombineLatestSource(third), CombineLatestSource(fourth), CombineLatestSource(fifth), CombineLatestSource(sixth), CombineLatestSource(seventh)])
}

/// Combines the latest events of 8 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType, P7: EventProducerType, P8: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6, _ seventh: P7, _ eighth: P8
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event)> {
  CombineLatest(sources: [CombineLatestSource(first), CombineLatestSource(second), CombineLatestSource(third), CombineLatestSource(fourth), CombineLatestSource(fifth), CombineLatestSource(sixth), CombineLatestSource(seventh), CombineLatestSource(eighth)])
}

/// Combines the latest events of 9 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event, P9.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType, P7: EventProducerType, P8: EventProducerType, P9: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6, _ seventh: P7, _ eighth: P8, _ ninth: P9
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event, P9.Event)> {
  CombineLatest(sources: [CombineLatestSource(first), CombineLatestSource(second), CombineLatestSource(third), CombineLatestSource(fourth), CombineLatestSource(fifth), CombineLatestSource(sixth), CombineLatestSource(seventh), CombineLatestSource(eighth), CombineLatestSource(ninth)])
}

/// Combines the latest events of 10 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event, P9.Event, P10.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType, P7: EventProducerType, P8: EventProducerType, P9: EventProducerType, P10: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6, _ seventh: P7, _ eighth: P8, _ ninth: P9, _ tenth: P10
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event, P9.Event, P10.Event)> {
  CombineLatest(sources: [CombineLatestSource(first), CombineLatestSource(second), CombineLatestSource(third), CombineLatestSource(fourth), CombineLatestSource(fifth), CombineLatestSource(sixth), CombineLatestSource(seventh), CombineLatestSource(eighth), CombineLatestSource(ninth), CombineLatestSource(tenth)])
}

/// Combines the latest events of any number of producers (of any types) into flat tuples.
///
/// The overloads for 2 to 10 producers are preferred where they apply; this one serves more.
/// With Swift 6.3, bind the result to a constant before chaining a closure onto it
/// (`let all = combineLatest(...); all.observe { ... }`): the type checker cannot infer the
/// producers' pack together with a closure in one expression. Its per-event work is not
/// specialized for the producers' types (slower than the overloads, still no allocation).
/// - Precondition: at least two producers.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, ...)`. See ``CombineLatest``.
@inlinable
public func combineLatest<each P: EventProducerType>(
  _ producers: repeat each P
) -> CombineLatest<(repeat (each P).Event)> {
  var sources: [CombineLatestSource] = []
  for producer in repeat each producers { sources.append(CombineLatestSource(producer)) }
  precondition(sources.count >= 2, "combineLatest(_:...): needs at least two producers, got \(sources.count)")
  return CombineLatest(sources: sources)
}

extension EventProducerType {
  /// Combines the latest event of this producer with the latest event of `other` (Bond v4's
  /// `combineLatestWith`): nothing until both have sent, then one tuple per event of either.
  ///
  /// ```swift
  /// a.combineLatestWith(b).observe { a, b in print(a, b) }
  /// ```
  /// - Returns: a lazy producer of `(Event, Other.Event)`. See ``CombineLatest``.
  @inlinable
  public func combineLatestWith<Other: EventProducerType>(
    _ other: Other
  ) -> CombineLatest<(Event, Other.Event)> {
    CombineLatest(sources: [CombineLatestSource(self), CombineLatestSource(other)])
  }
}
