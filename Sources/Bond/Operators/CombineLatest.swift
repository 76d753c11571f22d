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
/// `Event` is the flat tuple `(P1.Event, P2.Event, ...)` of the upstreams' events, spelled as a
/// plain generic parameter: the type checker of Swift 6.3 destructures a closure's tuple parameter
/// (`{ email, pass in }`, `{ "\($0)\($1)" }`) and reads `$0.0` only on such a tuple, not on a tuple
/// expanded from the pack. Values are made by ``combineLatest(_:_:)`` and its overloads; the
/// initializer checks that `Event` is that tuple.
///
/// How: each observation keeps the latest events in one tuple of storage, written element by
/// element. Each upstream's events go into a queue of their own type and their position goes into a
/// private ``EventProducer<Int>`` (lossless, serialized, reentrancy-safe), whose single observer
/// moves the event into the tuple and delivers the tuple. The code for the pack of upstreams runs
/// at subscription only: Swift 6.3 does not specialize code over parameter packs, which costs
/// thousands of instructions per event; what runs per event is plain generic code over `Event` and
/// each upstream's event type. No allocation per event.
/// - Note: thread-safe: the upstreams may send from any threads at once.
public struct CombineLatest<Event, each Upstream: EventProducerType>: EventProducerType {
  /// The combined producers, in order.
  @usableFromInline let upstreams: (repeat each Upstream)

  @inlinable
  init(_ upstreams: repeat each Upstream) {
    precondition(
      Event.self == (repeat (each Upstream).Event).self,
      "CombineLatest: Event must be the tuple of the upstreams' events")
    self.upstreams = (repeat each upstreams)
  }

  /// The last upstream's replay length when every upstream replays something, else 0: the
  /// upstreams are observed in order, so only the last one's replay can complete tuples.
  @inlinable
  public var replayLength: Int {
    var everyOneReplays = true
    var last = 0
    for upstream in repeat each upstreams {
      last = upstream.replayLength
      if last == 0 { everyOneReplays = false }
    }
    return everyOneReplays ? last : 0
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
    var slots: [CombineLatestSlot] = []
    for upstream in repeat each upstreams {
      slots.append(Self.slot(for: upstream, layout: &layout))
    }
    precondition(
      layout.size == MemoryLayout<Event>.size && layout.alignment == MemoryLayout<Event>.alignment,
      "CombineLatest: unexpected tuple layout")
    let serializer = EventProducer<Int>()
    let sink = CombineLatestSink(slots: slots, observer: observer, registered: registered)
    // The inbox goes first: disposing it stops the deliveries (waiting for one in flight on
    // another thread) and releases the observer and the latest events; then the upstreams are let go.
    let disposables = CompositeDisposable([serializer.observe { sink.receive($0) }])
    var position = 0
    for upstream in repeat each upstreams {
      disposables.add(Self.forward(upstream, into: slots[position], at: position, serializer: serializer))
      position += 1
    }
    return disposables
  }

  /// The slot of an upstream's events, at the next offset of the tuple.
  @inlinable
  static func slot<Source: EventProducerType>(for _: Source, layout: inout TupleLayout) -> CombineLatestSlot {
    CombineLatestTypedSlot<Source.Event>(offset: layout.append(Source.Event.self))
  }

  /// Observes `upstream`: each event is queued in its slot and its position sent into
  /// `serializer`; the end of its registration too. The closures hold the serializer and the slot:
  /// they live while the upstream can send.
  @inlinable
  static func forward<Source: EventProducerType>(
    _ upstream: Source, into slot: CombineLatestSlot, at position: Int, serializer: EventProducer<Int>
  ) -> any DisposableType {
    // `slot` was made by `slot(for:layout:)` for this very upstream.
    let typed = unsafeDowncast(slot, to: CombineLatestTypedSlot<Source.Event>.self)
    return upstream.observe(
      { event in
        typed.push(event)
        serializer.next(position)
      },
      registered: { serializer.next(CombineLatestSink<Event>.registeredMarker) })
  }
}

/// One upstream's place in a `combineLatest` observation: where its latest event lives in the
/// tuple, and the events it sent that the serializer has not delivered yet. Type-erased, so the
/// sink reaches any upstream's slot by position.
@usableFromInline
class CombineLatestSlot {
  /// The byte offset of this upstream's element in the tuple.
  @usableFromInline let offset: Int
  /// Whether the element is initialized. Touched only by the serializer's observer.
  @usableFromInline var isSet = false

  @inlinable
  init(offset: Int) {
    self.offset = offset
  }

  /// Moves the oldest queued event into the tuple at `base`.
  @inlinable
  func storeNext(in base: UnsafeMutableRawPointer) {
    fatalError("CombineLatestSlot.storeNext(in:) is overridden")
  }

  /// Deinitializes this upstream's element of the tuple at `base`, if set.
  @inlinable
  func clear(in base: UnsafeMutableRawPointer) {
    fatalError("CombineLatestSlot.clear(in:) is overridden")
  }
}

@usableFromInline
final class CombineLatestTypedSlot<Value>: CombineLatestSlot {
  /// Events sent and not yet moved into the tuple: pushed by the upstream's delivery, popped by
  /// the serializer's observer, one push per position the serializer delivers.
  @usableFromInline let queue = LockedState(WorkQueue<Value>())

  @inlinable
  override init(offset: Int) {
    super.init(offset: offset)
  }

  @inlinable
  func push(_ value: Value) {
    queue.withLock { $0.push(value) }
  }

  @inlinable
  override func storeNext(in base: UnsafeMutableRawPointer) {
    // The serializer delivers this slot's position once per push: the queue is not empty.
    let value = queue.withLock { $0.pop() }.unsafelyUnwrapped
    // The tuple's memory is bound to the tuple type, whose element at `offset` is a `Value`.
    // Assigned outside the lock: releasing the previous event may run a deinit.
    let element = (base + offset).assumingMemoryBound(to: Value.self)
    if isSet {
      element.pointee = value
    } else {
      element.initialize(to: value)
      isSet = true
    }
  }

  @inlinable
  override func clear(in base: UnsafeMutableRawPointer) {
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
  /// The position that says an upstream has finished registering.
  @inlinable static var registeredMarker: Int { -1 }

  /// The latest event of each upstream, initialized element by element (see `slots`).
  @usableFromInline let tuple: UnsafeMutablePointer<Event>
  @usableFromInline let slots: [CombineLatestSlot]
  @usableFromInline var machine: CombineLatestStateMachine
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
    for slot in slots { slot.clear(in: UnsafeMutableRawPointer(tuple)) }
    tuple.deallocate()
  }

  @inlinable
  func receive(_ position: Int) {
    guard position != Self.registeredMarker else {
      if machine.sourceRegistered() { registered() }
      return
    }
    let slot = slots[position]
    let isItsFirst = !slot.isSet
    slot.storeNext(in: UnsafeMutableRawPointer(tuple))
    if machine.eventStored(isItsFirst: isItsFirst) {
      observer(tuple.pointee)
    }
  }
}

// # The entry points
//
// One N-ary core, `CombineLatest<Event, each Upstream>`, does the work for every arity. The free
// functions for 2 to 10 producers are one-line, non-variadic entry points into it: with Swift 6.3,
// a variadic function's pack cannot be inferred together with a closure in the same expression
// (`combineLatest(a, b).map { x, y in ... }` does not type-check against a variadic
// `combineLatest(_:_:_: repeat each P)`), while it does against a function of plain generic
// parameters returning the same core. The variadic function at the end serves more than 10.

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
) -> CombineLatest<(P1.Event, P2.Event), P1, P2> {
  CombineLatest(first, second)
}

/// Combines the latest events of 3 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3
) -> CombineLatest<(P1.Event, P2.Event, P3.Event), P1, P2, P3> {
  CombineLatest(first, second, third)
}

/// Combines the latest events of 4 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event), P1, P2, P3, P4> {
  CombineLatest(first, second, third, fourth)
}

/// Combines the latest events of 5 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event), P1, P2, P3, P4, P5> {
  CombineLatest(first, second, third, fourth, fifth)
}

/// Combines the latest events of 6 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event), P1, P2, P3, P4, P5, P6> {
  CombineLatest(first, second, third, fourth, fifth, sixth)
}

/// Combines the latest events of 7 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType, P7: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6, _ seventh: P7
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event), P1, P2, P3, P4, P5, P6, P7> {
  CombineLatest(first, second, third, fourth, fifth, sixth, seventh)
}

/// Combines the latest events of 8 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType, P7: EventProducerType, P8: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6, _ seventh: P7, _ eighth: P8
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event), P1, P2, P3, P4, P5, P6, P7, P8> {
  CombineLatest(first, second, third, fourth, fifth, sixth, seventh, eighth)
}

/// Combines the latest events of 9 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event, P9.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType, P7: EventProducerType, P8: EventProducerType, P9: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6, _ seventh: P7, _ eighth: P8, _ ninth: P9
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event, P9.Event), P1, P2, P3, P4, P5, P6, P7, P8, P9> {
  CombineLatest(first, second, third, fourth, fifth, sixth, seventh, eighth, ninth)
}

/// Combines the latest events of 10 producers (of any types) into flat tuples.
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers one
/// tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event, P9.Event, P10.Event)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType, P5: EventProducerType, P6: EventProducerType, P7: EventProducerType, P8: EventProducerType, P9: EventProducerType, P10: EventProducerType>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6, _ seventh: P7, _ eighth: P8, _ ninth: P9, _ tenth: P10
) -> CombineLatest<(P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event, P9.Event, P10.Event), P1, P2, P3, P4, P5, P6, P7, P8, P9, P10> {
  CombineLatest(first, second, third, fourth, fifth, sixth, seventh, eighth, ninth, tenth)
}

/// Combines the latest events of any number of producers (of any types) into flat tuples.
///
/// The overloads for 2 to 10 producers are preferred where they apply; this one serves more.
/// With Swift 6.3, bind the result to a constant before chaining a closure onto it
/// (`let all = combineLatest(...); all.observe { ... }`): the type checker cannot infer the
/// producers' pack together with a closure in one expression.
/// - Precondition: at least two producers.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, ...)`. See ``CombineLatest``.
@inlinable
public func combineLatest<each P: EventProducerType>(
  _ producers: repeat each P
) -> CombineLatest<(repeat (each P).Event), repeat each P> {
  var count = 0
  for _ in repeat (each P).self { count += 1 }
  precondition(count >= 2, "combineLatest(_:...): needs at least two producers, got \(count)")
  return CombineLatest(repeat each producers)
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
  ) -> CombineLatest<(Event, Other.Event), Self, Other> {
    CombineLatest(self, other)
  }
}
