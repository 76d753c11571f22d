/// The result of ``EventProducerType/merge()``: the events of every inner producer received.
///
/// Each inner producer the outer sends is observed at once and its events are forwarded, its
/// replay included, for as long as the observation lasts. What the inners (and the outer) send
/// concurrently is serialized: one delivery at a time, each inner's events in its order, none
/// lost. An inner received from inside a delivery, or one that replays on registration, keeps that
/// serialized order. `registered` is forwarded once the outer has finished registering.
///
/// It ends when the outer and every inner it received have ended (an outer that ends without any
/// inner ends it at once), after every event before it; the observation is then disposed.
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
  /// At most this many inners observed at once (``EventProducerType/merge(maxConcurrent:)``);
  /// `Int.max` for ``EventProducerType/merge()``.
  @usableFromInline let maxConcurrent: Int

  @inlinable
  init(upstream: Upstream, maxConcurrent: Int = .max) {
    self.upstream = upstream
    self.maxConcurrent = maxConcurrent
  }

  /// The outer's replay length: each inner it replays is counted as one event (the inners' own
  /// replays are not known before they arrive).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the outer producer and every inner producer it sends; `registered` is called once
  /// the outer has finished registering; the end comes once the outer and every inner received
  /// have ended.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    MergeSink.observe(outer: upstream, transform: { $0 }, maxConcurrent: maxConcurrent, observer: observer)
  }
}

/// The result of ``merge(_:)-([P])``: the events of every producer of an array (Bond v3's `any`).
///
/// Each producer is observed once, in order; what they send concurrently is serialized (one
/// delivery at a time, each producer's events in its order, none lost). `registered` is forwarded
/// once every producer has finished registering. It ends when all of them have ended (an empty
/// array at once). Like every operator, the value holds the producers; an observation does not
/// keep them alive.
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

  /// Observes every producer; `registered` is called once all of them have finished registering;
  /// the end comes once all of them have ended (at once for an empty array).
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    MergeSink.observe(producers, observer: observer)
  }
}

/// The single observer of a `merge` observation's inbox: it owns the state, observes the inner
/// producers and calls the observer. The inbox never calls it concurrently, so it needs no lock,
/// and the observer is called with no lock held.
@usableFromInline
final class MergeSink<Inner: EventProducerType>: InboxSink {
  @usableFromInline typealias Input = MergeInput<Inner, Inner.Event>

  @usableFromInline let output: InboxSinkOutput<Inner.Event, Input>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine: MergeStateMachine<Inner>
  /// Whether each inner's own registration counts (an array's producers), or only the outer's.
  @usableFromInline let countsInnerRegistrations: Bool

  @inlinable
  init(
    inbox: Inbox<Input>,
    machine: MergeStateMachine<Inner>,
    countsInnerRegistrations: Bool,
    observer: EventObserver<Inner.Event>
  ) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    registered = observer.registered
    self.machine = machine
    self.countsInnerRegistrations = countsInnerRegistrations
  }

  @inlinable
  func receive(_ input: Input) {
    switch input {
    case .event(let event):
      output.observer(event)
    case .inner(let inner):
      // Observed now, or when an observed one ends (merge(maxConcurrent:)).
      perform(machine.innerReceived(inner))
    case .registered:
      perform(machine.registrationFinished())
    case .innerEnded:
      perform(machine.innerEnded())
    case .outerEnded:
      perform(machine.outerEnded())
    }
  }

  /// Performs the machine's action.
  @inlinable
  func perform(_ action: MergeStateMachine<Inner>.Action) {
    switch action {
    case .observe(let inner): observeInner(inner)
    case .callRegistered: callRegistered()
    case .release(let released, let thenEnd):
      _ = released  // released here, outside any lock; their observations go on
      if thenEnd { end() }
    case .end: end()
    case .ignore: break
    }
  }

  /// Observes an inner producer into the inbox.
  @inlinable
  func observeInner(_ inner: Inner) {
    // The inner's closures hold the inbox: it lives while an inner can send. A replay (and the
    // end of an inner that has ended) is queued behind this delivery, so it keeps the order.
    let inbox = output.inbox
    // The direct path (EventProducer+Direct.swift): with the inbox idle, the event goes to the
    // observer at once, as `receive(.event)` would.
    let link = InboxLink(inbox, sink: self)
    let innerRegistered: Input? = countsInnerRegistrations && registered != nil ? .registered : nil
    inbox.disposables.add(
      inner.observe(
        with: EventObserver(
          { event in
            if !link.deliverIfIdle({ $0.output.observer(event) }) { link.next(.event(event)) }
          },
          finished: inbox.sender(.innerEnded),
          registered: inbox.sender(innerRegistered),
          pressure: inbox.pressure
        )
      )
    )
  }

  /// Starts a merge observation of `outer`, each event `transform`ed into an inner producer.
  @inlinable
  static func observe<Outer: EventProducerType>(
    outer: Outer,
    transform: @escaping (Outer.Event) -> Inner,
    maxConcurrent: Int = .max,
    observer: EventObserver<Inner.Event>
  ) -> any DisposableType {
    Inbox.observation(pressure: observer.pressure) { inbox in
      open(
        inbox,
        registrations: 1,
        retainsInners: true,
        countsInnerRegistrations: false,
        maxConcurrent: maxConcurrent,
        observer
      )
      let registered: Input? = observer.registered == nil ? nil : .registered
      inbox.observeOuter(outer, { .inner(transform($0)) }, ended: .outerEnded, registered: registered)
    }
  }

  /// Starts a merge observation of `producers`; the end of the array (`outerEnded`) comes after the
  /// last of them, so the observation ends once each has ended, or at once when there are none.
  @inlinable
  static func observe(_ producers: [Inner], observer: EventObserver<Inner.Event>) -> any DisposableType {
    Inbox.observation(pressure: observer.pressure) { inbox in
      let registrations = Swift.max(producers.count, 1)
      open(inbox, registrations: registrations, retainsInners: false, countsInnerRegistrations: true, observer)
      for producer in producers { inbox.serializer.next(.inner(producer)) }
      if producers.isEmpty { inbox.serializer.next(.registered) }
      inbox.serializer.next(.outerEnded)
    }
  }

  /// Makes the sink and opens `inbox` to it.
  @inlinable
  static func open(
    _ inbox: Inbox<Input>,
    registrations: Int,
    retainsInners: Bool,
    countsInnerRegistrations: Bool,
    maxConcurrent: Int = .max,
    _ observer: EventObserver<Inner.Event>
  ) {
    let sink = MergeSink(
      inbox: inbox,
      machine: MergeStateMachine(
        registrations: registrations,
        retainsInners: retainsInners,
        maxConcurrent: maxConcurrent
      ),
      countsInnerRegistrations: countsInnerRegistrations,
      observer: observer
    )
    inbox.open { sink.receive($0) }
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

  /// ``merge()`` that observes at most `maxConcurrent` inner producers at once: the others wait
  /// their turn, in order, and the next is observed when an observed one ends. Inners are hot:
  /// what an inner sends before its turn is lost, except its replay. It ends when the outer and
  /// every inner have ended. See <doc:MergeGuide>.
  ///
  /// ```swift
  /// downloads.merge(maxConcurrent: 4).observe { chunk in write(chunk) }
  /// ```
  /// - Precondition: `maxConcurrent` is at least 1.
  @inlinable
  public func merge(maxConcurrent: Int) -> Merge<Self> {
    precondition(maxConcurrent >= 1, "merge(maxConcurrent:): maxConcurrent must be at least 1, got \(maxConcurrent)")
    return Merge(upstream: self, maxConcurrent: maxConcurrent)
  }

  /// The inner producers one after another: ``merge(maxConcurrent:)`` with 1. An inner waiting
  /// its turn keeps its replay (a producer with a replay buffer loses nothing).
  ///
  /// ```swift
  /// pages.concat().observe { page in append(page) }
  /// ```
  @inlinable
  public func concat() -> Merge<Self> {
    Merge(upstream: self, maxConcurrent: 1)
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
  MergeArray(producers: producers.map { AnyEventProducer($0) })
}
