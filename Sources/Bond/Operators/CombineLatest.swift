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
/// expanded from the pack. Values are made by ``combineLatest(_:_:)`` and its overloads, which
/// prove that it is that tuple.
///
/// How: each observation forwards every upstream's events, tagged with their position, into a
/// private ``EventProducer`` (lossless, serialized, reentrancy-safe) whose single observer owns the
/// ``CombineLatestStateMachine`` and calls the observer. No allocation per event.
/// - Note: thread-safe: the upstreams may send from any threads at once.
public struct CombineLatest<Event, each Upstream: EventProducerType>: EventProducerType {
  @usableFromInline typealias Input = CombineLatestInput<repeat (each Upstream).Event>
  @usableFromInline typealias TupleObserver = ((repeat (each Upstream).Event)) -> Void

  /// The combined producers, in order.
  @usableFromInline let upstreams: (repeat each Upstream)
  /// The identity, from an observer of `Event` to an observer of the tuple of the upstreams'
  /// events: the same type, which the entry points can see and this generic code cannot.
  @usableFromInline let adapt: (@escaping (Event) -> Void) -> TupleObserver

  @inlinable
  init(_ upstreams: repeat each Upstream, adapt: @escaping (@escaping (Event) -> Void) -> TupleObserver) {
    self.upstreams = (repeat each upstreams)
    self.adapt = adapt
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
    let serializer = EventProducer<Input>()
    let sink = CombineLatestSink<repeat (each Upstream).Event>(observer: adapt(observer), registered: registered)
    let inbox = serializer.observe { input in sink.receive(input) }
    // The inbox goes first: disposing it stops the deliveries (waiting for one in flight on
    // another thread) and releases the observer; then the upstreams are let go.
    let disposables = CompositeDisposable([inbox])
    var position = 0
    for upstream in repeat each upstreams {
      disposables.add(Self.forward(upstream, at: position, into: serializer))
      position += 1
    }
    return disposables
  }

  /// Observes `upstream`, sending its events (tagged with `position`) and its registration
  /// into `serializer`. The closures hold the serializer: it lives while an upstream can send.
  @inlinable
  static func forward<Source: EventProducerType>(
    _ upstream: Source, at position: Int, into serializer: EventProducer<Input>
  ) -> any DisposableType {
    upstream.observe(
      { event in serializer.next(Input.event(event, at: position)) },
      registered: { serializer.next(Input.registered()) })
  }
}

/// The single observer of a `combineLatest` observation's serializer: it owns the state and calls
/// the observer. The serializer never calls it concurrently, so it needs no lock, and the observer
/// is called with no lock held. Released (with the observer) when the observation is disposed.
///
/// A class rather than closure captures: the work on tuples of packs lives in a method, which this
/// compiler handles where a closure body crashes it.
@usableFromInline
final class CombineLatestSink<each Value> {
  @usableFromInline var machine = CombineLatestStateMachine<repeat each Value>()
  @usableFromInline let observer: ((repeat each Value)) -> Void
  @usableFromInline let registered: () -> Void

  @inlinable
  init(observer: @escaping ((repeat each Value)) -> Void, registered: @escaping () -> Void) {
    self.observer = observer
    self.registered = registered
  }

  @inlinable
  func receive(_ input: CombineLatestInput<repeat each Value>) {
    if input.source != CombineLatestInput<repeat each Value>.registeredMarker {
      // Re-expanded into a fresh tuple: passing the bound tuple itself crashes this compiler.
      if let tuple = machine.valueReceived(input) { observer((repeat each tuple)) }
    } else if machine.sourceRegistered() {
      registered()
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
  CombineLatest(first, second, adapt: { $0 })
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
  CombineLatest(first, second, third, adapt: { $0 })
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
  CombineLatest(first, second, third, fourth, adapt: { $0 })
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
  CombineLatest(first, second, third, fourth, fifth, adapt: { $0 })
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
  CombineLatest(first, second, third, fourth, fifth, sixth, adapt: { $0 })
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
  CombineLatest(first, second, third, fourth, fifth, sixth, seventh, adapt: { $0 })
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
  CombineLatest(first, second, third, fourth, fifth, sixth, seventh, eighth, adapt: { $0 })
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
  CombineLatest(first, second, third, fourth, fifth, sixth, seventh, eighth, ninth, adapt: { $0 })
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
  CombineLatest(first, second, third, fourth, fifth, sixth, seventh, eighth, ninth, tenth, adapt: { $0 })
}

/// Combines the latest events of more than 10 producers (of any types) into flat tuples.
///
/// The same as the overloads for 2 to 10 producers. With Swift 6.3, bind the result to a constant
/// before chaining a closure onto it (`let all = combineLatest(...); all.observe { ... }`): the
/// type checker cannot infer the producers' pack together with a closure in one expression.
/// - Returns: a lazy producer of `(P1.Event, ..., P11.Event, ...)`. See ``CombineLatest``.
@inlinable
public func combineLatest<
  P1: EventProducerType, P2: EventProducerType, P3: EventProducerType, P4: EventProducerType,
  P5: EventProducerType, P6: EventProducerType, P7: EventProducerType, P8: EventProducerType,
  P9: EventProducerType, P10: EventProducerType, P11: EventProducerType, each P: EventProducerType
>(
  _ first: P1, _ second: P2, _ third: P3, _ fourth: P4, _ fifth: P5, _ sixth: P6, _ seventh: P7,
  _ eighth: P8, _ ninth: P9, _ tenth: P10, _ eleventh: P11, _ rest: repeat each P
) -> CombineLatest<
  (P1.Event, P2.Event, P3.Event, P4.Event, P5.Event, P6.Event, P7.Event, P8.Event, P9.Event, P10.Event, P11.Event,
   repeat (each P).Event),
  P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, repeat each P
> {
  CombineLatest(
    first, second, third, fourth, fifth, sixth, seventh, eighth, ninth, tenth, eleventh, repeat each rest,
    adapt: { $0 })
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
    CombineLatest(self, other, adapt: { $0 })
  }
}
