/// The tuple of a tuple operator's observation (`combineLatest`, `zip`): its storage and the
/// upstreams' slots in it. A `let` of the sink; freed by the sink's `deinit` (``release()``).
@usableFromInline
struct TupleStorage<Event> {
  /// The tuple, initialized element by element through `slots`.
  @usableFromInline let pointer: UnsafeMutablePointer<Event>
  @usableFromInline let slots: [TupleSlot]

  @inlinable
  init(slots: [TupleSlot]) {
    pointer = .allocate(capacity: 1)
    self.slots = slots
  }

  /// The tuple's address, for the slots.
  @inlinable
  var base: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }

  /// Deinitializes what is set in the tuple and frees it.
  @inlinable
  func release() {
    for slot in slots { slot.clear(base) }
    pointer.deallocate()
  }
}

/// A tuple operator's sink as its upstreams reach it on the inbox's direct path
/// (`EventProducer+Direct.swift`): not generic, so that an upstream's closure, specialized for its
/// own event type, calls it without knowing the tuple's type (`zip`: one virtual call, no retain;
/// `combineLatest`: a final method of ``CombineLatestSinkBase``, inlined into the closure).
@usableFromInline
class TupleDirectSink {
  /// The tuple's address (``TupleStorage/base``).
  @usableFromInline let base: UnsafeMutableRawPointer
  /// Whether the sink takes each event from its upstream's queue (`zip`, which matches the n-th
  /// events) rather than the latest into the tuple at once (`combineLatest`).
  @usableFromInline let buffersEvents: Bool

  @inlinable
  init(base: UnsafeMutableRawPointer, buffersEvents: Bool) {
    self.base = base
    self.buffersEvents = buffersEvents
  }

  /// An event of the upstream at `position` was stored into the tuple (`isItsFirst`: its first; when
  /// the sink `buffersEvents`: it was stored, the upstream having nothing unmatched, else queued);
  /// called on the direct path, holding the inbox's rights.
  @inlinable
  func receiveDirect(_ position: Int, isItsFirst: Bool) {
    preconditionFailure("TupleDirectSink.receiveDirect: every tuple sink overrides it")
  }
}

/// The sink of a tuple operator: the single observer of the observation's inbox, which receives an
/// upstream's position when it sent an event, or a marker (negative) for a registration's end or
/// an upstream's end.
@usableFromInline
protocol TupleSink<Event>: TupleDirectSink, InboxSink where Input == Int {
  init(slots: [TupleSlot], inbox: Inbox<Int>, observer: EventObserver<Event>)
  func receive(_ position: Int)
  /// Flow control: whether the sink bounds the events it holds unmatched per source (`zip`), with
  /// one gate per source that ``hold(back:)`` receives; `combineLatest` keeps one latest value per
  /// source and has nothing to bound.
  static var boundsUnmatched: Bool { get }
  /// The gates of the sources, one per position (only when ``boundsUnmatched`` and a
  /// `.backpressure` stage is downstream).
  func hold(back sourceGates: [FlowGate])
}

extension Array where Element == TupleSource {
  /// The observation of a tuple operator over these upstreams: lays the tuple out, checks the
  /// layout against the compiler's, makes the sink, opens the inbox to it and observes every
  /// upstream in order (stopping if the observation ended during a registration).
  @inlinable
  func observeTuples<Sink: TupleSink>(
    into sink: Sink.Type,
    observer: EventObserver<Sink.Event>,
    operator name: StaticString
  ) -> any DisposableType {
    var layout = TupleLayout()
    let parts = map { $0.makeSlot(&layout) }
    precondition(
      layout.size == MemoryLayout<Sink.Event>.size && layout.alignment == MemoryLayout<Sink.Event>.alignment,
      "\(name): the tuple layout differs from the compiler's"
    )
    return Inbox.observation(pressure: observer.pressure) { inbox in
      let sink = Sink(slots: parts.map(\.slot), inbox: inbox, observer: observer)
      // Flow control through zip: each source gets a gate of its own, under pressure while the
      // stage downstream is (a dependent of its gate) or while zip holds too many of its events.
      var sourceGates: [FlowGate]?
      if Sink.boundsUnmatched, let stage = observer.pressure {
        let gates = parts.map { _ in FlowGate() }
        for gate in gates { stage.addDependent(gate) }
        sink.hold(back: gates)
        sourceGates = gates
      }
      inbox.open { sink.receive($0) }
      for (position, part) in parts.enumerated() {
        if inbox.disposables.isDisposed { break }  // ended at registration
        let pressure = sourceGates?[position] ?? inbox.pressure
        inbox.disposables.add(part.observe(position, inbox, sink, observer.registered != nil, pressure))
      }
    }
  }

  /// The upstreams of a variadic tuple operator, each behind its own closures.
  /// - Precondition: at least two producers.
  @inlinable
  static func of<each P: EventProducerType>(_ producers: repeat each P, call: StaticString) -> [TupleSource] {
    var sources: [TupleSource] = []
    for producer in repeat each producers { sources.append(TupleSource(producer)) }
    precondition(sources.count >= 2, "\(call): needs at least two producers, got \(sources.count)")
    return sources
  }
}
