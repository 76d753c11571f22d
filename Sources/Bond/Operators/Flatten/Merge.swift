/// The result of ``EventProducerType/merge()``: the events of every inner producer received.
///
/// Each inner producer the outer sends is observed at once and its events are forwarded, its
/// replay included, for as long as the observation lasts. What the inners (and the outer) send
/// concurrently is serialized: one delivery at a time, each inner's events in its order, none
/// lost. An inner received from inside a delivery, or one that replays on registration, keeps that
/// serialized order. `registered` is forwarded once the outer has finished registering.
///
/// The observation keeps each inner producer alive while it forwards it, as long as the outer
/// lives; after the outer is gone, the inners alive elsewhere go on being forwarded. Disposing the
/// observation disposes the outer's and every inner's observation and releases them all.
/// - Note: thread-safe.
public struct Merge<Upstream: EventProducerType>: EventProducerType where Upstream.Event: EventProducerType {
  /// The events of the inner producers.
  public typealias Event = Upstream.Event.Event

  /// The producer of inner producers.
  @usableFromInline let upstream: Upstream

  @inlinable
  init(upstream: Upstream) {
    self.upstream = upstream
  }

  /// The outer's replay length: each inner it replays is counted as one event (the inners' own
  /// replays are not known before they arrive).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the outer producer and every inner producer it sends.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes the outer producer and every inner producer it sends; `registered` is called once
  /// the outer has finished registering.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void, registered: @escaping () -> Void) -> any DisposableType {
    MergeSink.observe(outer: upstream, transform: { $0 }, observer: observer, registered: registered)
  }
}

/// The result of ``merge(_:)-([P])``: the events of every producer of an array (Bond v3's `any`).
///
/// Each producer is observed once, in order; what they send concurrently is serialized (one
/// delivery at a time, each producer's events in its order, none lost). `registered` is forwarded
/// once every producer has finished registering. Like every operator, the value holds the
/// producers; an observation does not keep them alive.
/// - Note: thread-safe.
public struct MergeArray<Inner: EventProducerType>: EventProducerType {
  public typealias Event = Inner.Event

  /// The merged producers.
  @usableFromInline let producers: [Inner]

  @inlinable
  init(producers: [Inner]) {
    self.producers = producers
  }

  /// The sum of the producers' replay lengths.
  @inlinable
  public var replayLength: Int { producers.reduce(0) { $0 + $1.replayLength } }

  /// Observes every producer.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes every producer; `registered` is called once all of them have finished registering.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void, registered: @escaping () -> Void) -> any DisposableType {
    MergeSink.observe(producers, observer: observer, registered: registered)
  }
}

/// The single observer of a `merge` observation's serializer: it owns the state, observes the
/// inner producers and calls the observer. The serializer never calls it concurrently, so it needs
/// no lock, and the observer is called with no lock held.
@usableFromInline
final class MergeSink<Inner: EventProducerType> {
  @usableFromInline typealias Input = MergeInput<Inner, Inner.Event>

  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var machine: MergeStateMachine<Inner>
  @usableFromInline let observer: (Inner.Event) -> Void
  @usableFromInline let registered: () -> Void
  /// Whether each inner's own registration counts (an array's producers), or only the outer's.
  @usableFromInline let countsInnerRegistrations: Bool
  /// The observation's disposables: the inner observations are added as they are made.
  @usableFromInline let disposables: CompositeDisposable
  /// Unowned: the serializer holds this sink; it is alive whenever it calls `receive`.
  @usableFromInline unowned let serializer: EventProducer<Input>

  @inlinable
  init(
    serializer: EventProducer<Input>,
    disposables: CompositeDisposable,
    machine: MergeStateMachine<Inner>,
    countsInnerRegistrations: Bool,
    observer: @escaping (Inner.Event) -> Void,
    registered: @escaping () -> Void
  ) {
    self.serializer = serializer
    self.disposables = disposables
    self.machine = machine
    self.countsInnerRegistrations = countsInnerRegistrations
    self.observer = observer
    self.registered = registered
  }

  @inlinable
  func receive(_ input: Input) {
    switch input {
    case .event(let event):
      observer(event)
    case .inner(let inner):
      machine.innerReceived(inner)
      // The inner's closures hold the serializer: it lives while an inner can send. A replay is
      // queued by the serializer behind this delivery, so it keeps the serialized order.
      let serializer = self.serializer
      if countsInnerRegistrations {
        disposables.add(inner.observe({ serializer.next(.event($0)) }, registered: { serializer.next(.registered) }))
      } else {
        disposables.add(inner.observe { serializer.next(.event($0)) })
      }
    case .registered:
      if machine.registrationFinished() { registered() }
    case .outerEnded:
      let released = machine.outerEnded()
      _ = released  // released here, outside any lock; their observations go on
    }
  }

  /// Starts a merge observation of `outer`, each event `transform`ed into an inner producer.
  @inlinable
  static func observe<Outer: EventProducerType>(
    outer: Outer,
    transform: @escaping (Outer.Event) -> Inner,
    observer: @escaping (Inner.Event) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    let serializer = EventProducer<Input>()
    let disposables = start(
      serializer,
      registrations: 1,
      retainsInners: true,
      countsInnerRegistrations: false,
      observer: observer,
      registered: registered
    )
    let link = OuterReleaseNotifier(serializer: serializer, ended: Input.outerEnded)
    disposables.add(
      outer.observe(
        { event in link.serializer.next(.inner(transform(event))) },
        registered: { serializer.next(.registered) }
      )
    )
    return disposables
  }

  /// Starts a merge observation of `producers`.
  @inlinable
  static func observe(
    _ producers: [Inner],
    observer: @escaping (Inner.Event) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    let serializer = EventProducer<Input>()
    let disposables = start(
      serializer,
      registrations: Swift.max(producers.count, 1),
      retainsInners: false,
      countsInnerRegistrations: true,
      observer: observer,
      registered: registered
    )
    for producer in producers { serializer.next(.inner(producer)) }
    if producers.isEmpty { serializer.next(.registered) }
    return disposables
  }

  /// Registers the sink on `serializer`; returns the observation's disposables, the inbox first:
  /// disposing it starts no new delivery (one in flight on another thread runs to its end, never
  /// waited for) and releases the observer and the state once no delivery runs; then the outer and
  /// the inners are let go.
  @inlinable
  static func start(
    _ serializer: EventProducer<Input>,
    registrations: Int,
    retainsInners: Bool,
    countsInnerRegistrations: Bool,
    observer: @escaping (Inner.Event) -> Void,
    registered: @escaping () -> Void
  ) -> CompositeDisposable {
    let disposables = CompositeDisposable()
    let sink = MergeSink(
      serializer: serializer,
      disposables: disposables,
      machine: MergeStateMachine(registrations: registrations, retainsInners: retainsInners),
      countsInnerRegistrations: countsInnerRegistrations,
      observer: observer,
      registered: registered
    )
    disposables.add(serializer.observe { sink.receive($0) })
    return disposables
  }
}

/// A producer of the existential type `any EventProducerType<Event>`, usable where a concrete
/// conforming type is needed (``merge(_:)->EventProducerType<E>``).
@usableFromInline
struct ExistentialProducer<Event>: EventProducerType {
  @usableFromInline let base: any EventProducerType<Event>

  @inlinable
  init(_ base: any EventProducerType<Event>) {
    self.base = base
  }

  @inlinable
  var replayLength: Int { base.replayLength }

  @inlinable
  func observe(_ observer: @escaping (Event) -> Void) -> any DisposableType {
    base.observe(observer)
  }

  @inlinable
  func observe(_ observer: @escaping (Event) -> Void, registered: @escaping () -> Void) -> any DisposableType {
    base.observe(observer, registered: registered)
  }
}

extension EventProducerType where Event: EventProducerType {
  /// Forwards the events of every inner producer this producer sends (Bond v4's `merge`).
  ///
  /// ```swift
  /// let outer = EventProducer<EventProducer<Int>>()
  /// outer.merge().observe { print($0) }
  /// outer.next(first); outer.next(second)   // then the events of both are printed
  /// ```
  /// - Returns: a lazy producer of the inner producers' events. See ``Merge``.
  @inlinable
  public func merge() -> Merge<Self> {
    Merge(upstream: self)
  }
}

/// Forwards the events of every producer of `producers` (Bond v3's `any`).
///
/// ```swift
/// merge([taps, keys]).observe { print($0) }
/// ```
/// - Returns: a lazy producer of their events, serialized. See ``MergeArray``.
@inlinable
public func merge<P: EventProducerType>(_ producers: [P]) -> MergeArray<P> {
  MergeArray(producers: producers)
}

/// Forwards the events of every producer of `producers`, which may be of different types
/// (Bond v3's `any`).
///
/// ```swift
/// merge([taps, keys.map { $0 * 2 }] as [any EventProducerType<Int>]).observe { print($0) }
/// ```
/// - Returns: a lazy producer of their events, serialized. See ``MergeArray``.
@inlinable
public func merge<E>(_ producers: [any EventProducerType<E>]) -> some EventProducerType<E> {
  MergeArray(producers: producers.map(ExistentialProducer.init))
}
