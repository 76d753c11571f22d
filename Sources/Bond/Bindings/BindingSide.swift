import Synchronization

/// The process-wide clock of two-way bindings: each value a user writes into a bound producer gets
/// the next stamp when the producer delivers it, so stamps order writes (last writer wins).
/// relaxed: a stamp is only compared under the side locks, which order everything else.
@usableFromInline
let bindingClock = Atomic<UInt64>(0)

/// A value with the stamp of the write that produced it; `origin` is the side a binding fed it
/// from (nil for a user's write), so that it is not sent back there.
@usableFromInline
struct StampedValue<Value> {
  @usableFromInline var value: Value
  @usableFromInline var stamp: UInt64
  @usableFromInline var origin: ObjectIdentifier?

  @inlinable
  init(_ value: Value, stamp: UInt64, origin: ObjectIdentifier? = nil) {
    self.value = value
    self.stamp = stamp
    self.origin = origin
  }
}

/// One producer as every `Equatable` two-way binding of it sees it. This is how a connected group
/// of bindings (a pair, a chain, a cycle) settles on one value under concurrent writes (guarantee 9):
///
/// - The side observes its producer once, whatever the number of bindings, and forwards each
///   delivered value along its *edges* (one per binding) into the opposite sides.
/// - A delivered value that a binding fed into the side carries that feed's stamp; any other is a
///   user's write and takes a new stamp from ``bindingClock``.
/// - A value goes into an opposite side only when its stamp is newer than that side's newest value
///   (``accept(_:stamp:from:)``), so a value that lost the race is never fed anywhere again, and each
///   feed strictly raises a side's newest stamp: the group settles.
/// - Feeds into one side from different threads may arrive out of stamp order; a side that then
///   delivers an older value than its newest (and the newest is no longer on its way) is fed its
///   newest again (``delivered(_:)``), so every side ends on the group's newest value.
///
/// The decisions are taken under the side's lock (never two side locks at once); the feeds, which
/// run the producers' observers, run after unlocking.
@usableFromInline
final class BindingSide<Value: Equatable>: @unchecked Sendable {
  // @unchecked: the state is reached only through its lock; `feed` is immutable, and `observation`
  // is written once before the side is shared.

  /// A binding's way out of this side: the opposite side and a sink into its producer.
  @usableFromInline
  struct Edge {
    @usableFromInline let id: Int
    @usableFromInline let target: BindingSide<Value>
    @usableFromInline let sink: (Value) -> Void

    @inlinable
    init(id: Int, target: BindingSide<Value>, sink: @escaping (Value) -> Void) {
      self.id = id
      self.target = target
      self.sink = sink
    }
  }

  @usableFromInline
  struct State {
    /// The newest value the side has or is about to have (delivered, or fed and on its way).
    @usableFromInline var newest: StampedValue<Value>?
    /// Values fed into the side and not delivered yet, in the order they were fed.
    @usableFromInline var inFlight: [StampedValue<Value>] = []
    @usableFromInline var edges: [Edge] = []
    /// Set when the last edge leaves: the side no longer observes its producer.
    @usableFromInline var isClosed = false

    @inlinable init() {}
  }

  @usableFromInline let state = LockedState(State())
  /// Sends into the side's producer (its `sink`, holding it weakly).
  @usableFromInline let feed: (Value) -> Void
  /// The side's one observation of its producer.
  @usableFromInline var observation: (any DisposableType)?

  @usableFromInline
  init(feed: @escaping (Value) -> Void) {
    self.feed = feed
  }

  @inlinable
  var id: ObjectIdentifier { ObjectIdentifier(self) }

  /// The side's producer delivered `value`: stamps it, forwards it along the edges, and feeds the
  /// side its newest value again when `value` is an older one that arrived late.
  @usableFromInline
  func delivered(_ value: Value) {
    let (forward, edges, again) = state.withLock { state -> (StampedValue<Value>?, [Edge], Value?) in
      var stamped: StampedValue<Value>
      if let index = state.inFlight.firstIndex(where: { $0.value == value }) {
        stamped = state.inFlight.remove(at: index)
      } else {
        stamped = StampedValue(value, stamp: bindingClock.add(1, ordering: .relaxed).newValue)  // a user's write
      }
      guard let newest = state.newest, newest.value != value else {
        stamped.stamp = Swift.max(stamped.stamp, state.newest?.stamp ?? 0)
        state.newest = stamped
        return (stamped, state.edges, nil)
      }
      if stamped.stamp > newest.stamp {
        state.newest = stamped
        return (stamped, state.edges, nil)
      }
      // A value that lost the race arrived after the newest one: forward nothing, and feed the
      // newest again unless it is still on its way.
      if state.inFlight.contains(where: { $0.value == newest.value }) { return (nil, [], nil) }
      state.inFlight.append(StampedValue(newest.value, stamp: newest.stamp))
      return (nil, [], newest.value)
    }
    if let forward {
      for edge in edges
      where edge.target.id != forward.origin && edge.target.accept(value, stamp: forward.stamp, from: id) {
        edge.sink(value)
      }
    }
    if let again { feed(again) }  // from inside this delivery: queued behind it
  }

  /// Whether a binding feeds `value` with `stamp` into this side: only when it is newer than the
  /// side's newest value and differs from it (an equal value only lends its newer stamp). When it
  /// answers `true`, the value is recorded as on its way, and the caller feeds it after unlocking.
  @usableFromInline
  func accept(_ value: Value, stamp: UInt64, from origin: ObjectIdentifier) -> Bool {
    state.withLock { state -> Bool in
      if let newest = state.newest {
        if newest.value == value {
          if stamp > newest.stamp { state.newest!.stamp = stamp }
          return false
        }
        if stamp <= newest.stamp { return false }
      }
      let stamped = StampedValue(value, stamp: stamp, origin: origin)
      state.newest = stamped
      state.inFlight.append(stamped)
      return true
    }
  }

  /// Gives the side's newest value a stamp newer than every write so far, and returns it: the
  /// receiver of a new binding wins over the other side's current value.
  @usableFromInline
  func restamped() -> StampedValue<Value>? {
    let stamp = bindingClock.add(1, ordering: .relaxed).newValue
    return state.withLock { state -> StampedValue<Value>? in
      guard state.newest != nil else { return nil }
      state.newest!.stamp = stamp
      return state.newest
    }
  }

  /// Adds `edge`; `false` when the side has closed (its last binding left meanwhile).
  @usableFromInline
  func add(_ edge: Edge) -> Bool {
    state.withLock { state -> Bool in
      guard !state.isClosed else { return false }
      state.edges.append(edge)
      return true
    }
  }

  /// Removes the edge `id`; the side stops observing its producer when it was the last one.
  @usableFromInline
  func remove(edge id: Int) {
    let closed = state.withLock { state -> Bool in
      state.edges.removeAll { $0.id == id }
      guard state.edges.isEmpty, !state.isClosed else { return false }
      state.isClosed = true
      return true
    }
    guard closed else { return }
    bindingSides.withLock { sides in
      if let key = sides.first(where: { $0.value.side === self })?.key { sides[key] = nil }
    }
    observation?.dispose()  // outside every lock
  }
}

/// The open ``BindingSide`` of each bound producer that is a class, shared by all its bindings.
@usableFromInline
let bindingSides = LockedState<[ObjectIdentifier: WeakBindingSide]>([:])

/// A registry entry: weak, so a side goes with its producer.
@usableFromInline
struct WeakBindingSide {
  @usableFromInline weak var side: AnyObject?
  @usableFromInline weak var producer: AnyObject?

  @inlinable
  init(side: AnyObject, producer: AnyObject) {
    self.side = side
    self.producer = producer
  }
}

extension BindingSide {
  /// The open side shared by every `Equatable` binding of `producer` (a new one, observing it, for
  /// the first binding). A producer that is not a class gets a side of its own for each binding.
  @usableFromInline
  static func of<P: EventProducerType & BindableType>(_ producer: P) -> BindingSide<Value>
  where P.Event == Value, P.Element == Value {
    guard P.self is AnyClass else { return make(producer) }
    let object = producer as AnyObject
    let key = ObjectIdentifier(object)
    let existing = { (sides: [ObjectIdentifier: WeakBindingSide]) -> BindingSide<Value>? in
      guard let entry = sides[key], entry.producer === object else { return nil }
      return entry.side as? BindingSide<Value>
    }
    if let side = bindingSides.withLock({ existing($0) }) { return side }
    // Made outside the registry lock: observing may run other observers of the producer (user code).
    let made = make(producer)
    let side = bindingSides.withLock { sides -> BindingSide<Value> in
      if let side = existing(sides) { return side }  // another binding made one meanwhile
      sides = sides.filter { $0.value.side != nil && $0.value.producer != nil }
      sides[key] = WeakBindingSide(side: made, producer: object)
      return made
    }
    if side !== made { made.observation?.dispose() }  // lost the race: outside the lock
    return side
  }

  @usableFromInline
  static func make<P: EventProducerType & BindableType>(_ producer: P) -> BindingSide<Value>
  where P.Event == Value, P.Element == Value {
    let side = BindingSide(feed: producer.sink(nil))
    // The replay arrives before any edge exists: it only records the current value.
    side.observation = producer.observe { side.delivered($0) }
    return side
  }
}

/// The disposable of an `Equatable` two-way binding: removes its edges from both sides.
@usableFromInline
final class SettlingBinding<Value: Equatable>: DisposableType, @unchecked Sendable {
  // @unchecked: `edges` is guarded by its lock.
  @usableFromInline let edges = LockedState<(sides: [BindingSide<Value>], id: Int, isDisposed: Bool)>(([], 0, false))

  @usableFromInline
  init() {}

  @usableFromInline
  var isDisposed: Bool { edges.withLock { $0.isDisposed } }

  @usableFromInline
  func dispose() {
    let taken = edges.withLock { state -> ([BindingSide<Value>], Int)? in
      guard !state.isDisposed else { return nil }
      state.isDisposed = true
      defer { state.sides = [] }
      return (state.sides, state.id)
    }
    guard let (sides, id) = taken else { return }
    for side in sides { side.remove(edge: id) }
  }

  /// Connects `receiver` and `other` through their sides; the receiver's current value goes to
  /// `other` (unless `other` has it).
  @usableFromInline
  func connect<Receiver: EventProducerType & BindableType, Other: EventProducerType & BindableType>(
    _ receiver: Receiver,
    _ other: Other
  ) where Receiver.Event == Value, Receiver.Element == Value, Other.Event == Value, Other.Element == Value {
    // Both producers hold this binding and dispose it when deallocated; the sinks hold them weakly.
    let intoReceiver = receiver.sink(self)
    let intoOther = other.sink(self)
    let id = Int(bitPattern: UInt(bitPattern: ObjectIdentifier(self).hashValue))
    while true {
      let otherSide = BindingSide.of(other)
      let receiverSide = BindingSide.of(receiver)
      let addedToReceiver = receiverSide.add(.init(id: id, target: otherSide, sink: intoOther))
      let addedToOther = otherSide.add(.init(id: id, target: receiverSide, sink: intoReceiver))
      guard addedToReceiver, addedToOther else {
        // A side closed between lookup and add (its last binding left): undo and look up again.
        if addedToReceiver { receiverSide.remove(edge: id) }
        if addedToOther { otherSide.remove(edge: id) }
        continue
      }
      let disposedMeanwhile = edges.withLock { state -> Bool in
        state.sides = [receiverSide, otherSide]
        state.id = id
        return state.isDisposed
      }
      if disposedMeanwhile {
        receiverSide.remove(edge: id)
        otherSide.remove(edge: id)
        return
      }
      if let current = receiverSide.restamped(),
        otherSide.accept(current.value, stamp: current.stamp, from: receiverSide.id)
      {
        intoOther(current.value)
      }
      return
    }
  }
}
