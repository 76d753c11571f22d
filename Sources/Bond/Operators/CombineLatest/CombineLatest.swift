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
/// It ends when every upstream has ended, or at once when one ends without having sent (no tuple
/// can come any more), after the tuples of every event before it; the observation is then disposed.
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
  @usableFromInline let sources: [TupleSource]

  @inlinable
  init(sources: [TupleSource]) {
    self.sources = sources
  }

  /// The last upstream's replay length when every upstream replays something, else 0: the
  /// upstreams are observed in order, so only the last one's replay can complete tuples.
  @inlinable
  public var replayLength: Int {
    let lengths = sources.map { $0.replayLength() }
    return lengths.contains(0) ? 0 : lengths.last ?? 0
  }

  /// Observes every upstream; delivers a tuple once all have sent, then one per event; calls
  /// `registered` once all of them have finished registering (after the tuples that their replays
  /// complete); ends once every upstream has ended, or at once when one ends without having sent.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    sources.observeTuples(into: CombineLatestSink<Event>.self, observer: observer, operator: "combineLatest")
  }
}

// # The entry points
//
// One N-ary core, `CombineLatest<Event>` over an array of `TupleSource`s, does the work for
// every arity. The free functions for 2 to 10 producers (in `CombineLatest+Arity.swift`, generated
// by `Scripts/generate-arity.py`) are one-line, non-variadic entry points into it, for two reasons
// found with Swift 6.3:
// - Speed. The closures that run per event must be formed where the upstreams' types are
//   concrete. The optimizer does not specialize a loop over a parameter pack (its body stays
//   generic over the element's type) nor a generic class's overridden methods, and such code
//   costs thousands of instructions per event in runtime metadata lookups. A function of plain
//   generic parameters is specialized in the caller's module, and so are the closures it forms.
// - Type checking. A variadic function's pack cannot be inferred together with a closure in the
//   same expression (`combineLatest(a, b).map { x, y in ... }` does not type-check against
//   `combineLatest(_:_:_: repeat each P)`), and a closure's tuple parameter is destructured
//   (`{ email, pass in }`, `{ "\($0)\($1)" }`), and `$0.0` read, only when it is a plain tuple.
// The variadic function below serves more than 10 producers, with unspecialized closures.

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
  CombineLatest(sources: .of(repeat each producers, call: "combineLatest(_:...)"))
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
    CombineLatest(sources: [TupleSource(self), TupleSource(other)])
  }
}
