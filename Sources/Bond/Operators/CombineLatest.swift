/// The result of ``combineLatest(_:_:_:)`` and ``EventProducerType/combineLatestWith(_:)``: tuples
/// of the latest events of several producers.
///
/// Nothing is delivered until every upstream has sent; then each event of any upstream delivers
/// one tuple of the latest event of each. What the upstreams send concurrently is serialized:
/// tuples are delivered one at a time, a component never goes back to an older event of its
/// source, and the last tuple holds the last event of each upstream.
///
/// A lazy value: each observation observes every upstream once, in order. It does not keep the
/// upstreams alive (the value does, like every operator). `registered` is forwarded once every
/// upstream has finished registering.
///
/// How: each observation forwards every upstream's events, tagged with their position, into a
/// private ``EventProducer`` (lossless, serialized, reentrancy-safe) whose single observer owns the
/// ``CombineLatestStateMachine`` and calls the observer. No allocation per event.
/// - Note: thread-safe: the upstreams may send from any threads at once.
public struct CombineLatest<each Upstream: EventProducerType>: EventProducerType {
  /// A tuple of one event of each upstream, in the order of the upstreams.
  public typealias Event = (repeat (each Upstream).Event)

  @usableFromInline typealias Input = CombineLatestInput<repeat (each Upstream).Event>

  /// The combined producers, in order.
  @usableFromInline let upstreams: (repeat each Upstream)

  /// Combines `upstreams` (at least two, for a tuple).
  @inlinable
  public init(_ upstreams: repeat each Upstream) {
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
    let serializer = EventProducer<Input>()
    let sink = CombineLatestSink<repeat (each Upstream).Event>(observer: observer, registered: registered)
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

/// Combines the latest events of 2 or more producers (of any types) into flat tuples.
///
/// ```swift
/// let email = Observable(""), pass = Observable("")
/// combineLatest(email, pass)
///   .map { email, pass in !email.isEmpty && !pass.isEmpty }
///   .observe { print("enabled: \($0)") }      // prints "enabled: false"
/// ```
///
/// Nothing is delivered until every producer has sent; then each event of any of them delivers
/// one tuple of the latest event of each. See ``CombineLatest``.
/// - Returns: a lazy producer of `(P1.Event, P2.Event, ...)`.
@inlinable
public func combineLatest<P1: EventProducerType, P2: EventProducerType, each P: EventProducerType>(
  _ first: P1, _ second: P2, _ rest: repeat each P
) -> CombineLatest<P1, P2, repeat each P> {
  CombineLatest(first, second, repeat each rest)
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
  public func combineLatestWith<Other: EventProducerType>(_ other: Other) -> CombineLatest<Self, Other> {
    CombineLatest(self, other)
  }
}
