/// The result of ``zip(_:_:)`` (and its overloads for more producers) and
/// ``EventProducerType/zipWith(_:)``: tuples of the n-th events of several producers.
///
/// The n-th event of every upstream makes the n-th tuple. Only unmatched events are buffered, in a
/// ring per upstream (no `removeFirst`). What the upstreams send concurrently is serialized:
/// tuples are delivered one at a time, in order.
///
/// ```swift
/// requests.zipWith(replies).observe { request, reply in print(request, reply) }
/// ```
///
/// It ends when an upstream has ended and nothing it sent is left unmatched (at once when it ends
/// with nothing buffered), after the tuples before it; the observation is then disposed.
/// `registered` is forwarded once every upstream has finished registering.
/// - Note: thread-safe: the upstreams may send from any threads at once.
public struct Zip<Event>: EventProducerType {
  /// The zipped producers, in order (the same wrappers as `combineLatest`'s).
  @usableFromInline let sources: [TupleSource]

  @inlinable
  init(sources: [TupleSource]) {
    self.sources = sources
  }

  /// The smallest replay length of the upstreams: the tuples their replays can complete at most.
  @inlinable
  public var replayLength: Int {
    sources.map { $0.replayLength() }.min() ?? 0
  }

  /// Observes every upstream; delivers the n-th tuple once every upstream has sent its n-th event;
  /// ends when an upstream has ended and nothing it sent is left unmatched.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    sources.observeTuples(into: ZipSink<Event>.self, observer: observer, operator: "zip")
  }
}

/// Zips any number of producers (of any types) into flat tuples of their n-th events.
///
/// The overloads for 2 to 10 producers are preferred where they apply; this one serves more.
/// ```swift
/// let all = zip(a, b, c, d, e, f, g, h, i, j, k)
/// all.observe { print($0) }
/// ```
/// - Precondition: at least two producers.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, ...)`. See ``Zip``.
@inlinable
public func zip<each P: EventProducerType>(
  _ producers: repeat each P
) -> Zip<(repeat (each P).Event)> {
  Zip(sources: .of(repeat each producers, call: "zip(_:...)"))
}

extension EventProducerType {
  /// Pairs the n-th event of this producer with the n-th event of `other`.
  ///
  /// ```swift
  /// requests.zipWith(replies).observe { request, reply in print(request, reply) }
  /// ```
  /// - Returns: a lazy producer of `(Event, Other.Event)`. See ``Zip``.
  @inlinable
  public func zipWith<Other: EventProducerType>(_ other: Other) -> Zip<(Event, Other.Event)> {
    Zip(sources: [TupleSource(self), TupleSource(other)])
  }
}
