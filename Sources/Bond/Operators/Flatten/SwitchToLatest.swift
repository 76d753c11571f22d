import Synchronization

/// The result of ``EventProducerType/switchToLatest()``: the events of the latest inner producer.
///
/// Each inner producer the outer sends replaces the previous one: the previous one's observation is
/// disposed and released, the new one is observed (its replay included). Once a newer inner has
/// arrived, nothing of an older one is forwarded, even when it sends concurrently with the switch.
/// What the inners and the outer send concurrently is serialized; an inner received from inside a
/// delivery, or one that replays on registration, keeps that order. `registered` is forwarded once
/// the outer has finished registering.
///
/// It ends when the outer has ended and the latest inner has ended (an inner's end alone ends
/// nothing; an outer that ends without any inner ends it at once), after every event before it;
/// the observation is then disposed.
///
/// The observation keeps the current inner alive while it forwards it, as long as the outer lives.
/// Disposing it disposes the outer's and the current inner's observations and releases them.
/// - Note: thread-safe.
public struct SwitchToLatest<Upstream: EventProducerType>: EventProducerType where Upstream.Event: EventProducerType {
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

  /// Observes the outer producer and, at each time, the latest inner producer it sent;
  /// `registered` is called once the outer has finished registering; the end comes once the outer
  /// and the latest inner have ended.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    SwitchToLatestSink.observe(outer: upstream, transform: { $0 }, observer: observer)
  }
}

/// The single observer of a `switchToLatest` observation's inbox: it owns the state, switches the
/// inner observation and calls the observer. The inbox never calls it concurrently, so it needs no
/// lock, and the observer is called with no lock held.
@usableFromInline
final class SwitchToLatestSink<Inner: EventProducerType>: InboxSink {
  @usableFromInline typealias Input = SwitchToLatestInput<Inner, Inner.Event>

  @usableFromInline let output: InboxSinkOutput<Inner.Event, Input>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine = SwitchToLatestStateMachine<Inner>()
  /// The current inner observation; replacing it disposes the previous one.
  @usableFromInline let current: SerialDisposable
  /// What the current inner observation's closures capture; reused for the next inner once nothing
  /// else holds it (no allocation per switch).
  @exclusivity(unchecked) @usableFromInline var link: InnerLink<Inner, Inner.Event>?

  @inlinable
  init(inbox: Inbox<Input>, current: SerialDisposable, observer: EventObserver<Inner.Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    registered = observer.registered
    self.current = current
  }

  /// Asks the machine the method of `input`, then performs its action.
  @inlinable
  func receive(_ input: Input) {
    let action: SwitchToLatestStateMachine<Inner>.Action<Inner.Event> =
      switch input {
      case .event(let event, let generation): machine.received(event, generation: generation)
      case .inner(let inner): machine.innerReceived(inner)
      case .registered: machine.registrationEnded()
      case .innerEnded(let generation): machine.innerEnded(generation: generation)
      case .outerEnded: machine.outerEnded()
      }
    switch action {
    case .deliver(let event):
      output.observer(event)
    case .switchTo(let inner, let generation, let released):
      // The previous observation is disposed first, without waiting (a delivery of it in flight on
      // another thread only queues into the inbox; whatever it queues from now on has an old
      // generation). When its producer was idle, its closures are released at once, and with them
      // its link, which then carries the new generation.
      current.otherDisposable = nil
      let link = linkForNextInner(generation)
      // The inner's closures hold the inbox: it lives while the inner can send. A replay (and the
      // end of an inner that has ended) is queued behind this delivery, so it keeps the order.
      current.otherDisposable = inner.observe(
        with: EventObserver(
          { link.serializer.next(.event($0, generation: link.generation.load(ordering: .relaxed))) },
          finished: { link.ended() },
          registered: nil,
          pressure: output.inbox.pressure
        )
      )
      _ = released  // released here, after its observation was disposed
    case .callRegistered:
      callRegistered()
    case .release(let released, let thenEnd):
      _ = released  // its observation goes on
      if thenEnd { end() }
    case .end:
      end()
    case .ignore:
      break
    }
  }

  /// The link of the next inner observation: the previous one when no closure holds it any more
  /// (its observation is disposed and released), else a new one.
  @inlinable
  func linkForNextInner(_ generation: Int) -> InnerLink<Inner, Inner.Event> {
    if isKnownUniquelyReferenced(&link), let link {
      // Relaxed: no closure holds the link, so nobody reads it concurrently; the observation that
      // captures it next is registered after this store (the producer's delivery rights order it).
      link.generation.store(generation, ordering: .relaxed)
      return link
    }
    let fresh = InnerLink<Inner, Inner.Event>(serializer: output.inbox.serializer, generation: generation)
    link = fresh
    return fresh
  }

  /// Starts a switchToLatest observation of `outer`, each event `transform`ed into an inner.
  @inlinable
  static func observe<Outer: EventProducerType>(
    outer: Outer,
    transform: @escaping (Outer.Event) -> Inner,
    observer: EventObserver<Inner.Event>
  ) -> any DisposableType {
    Inbox.observation(pressure: observer.pressure) { inbox in
      let current = SerialDisposable()
      let sink = SwitchToLatestSink(inbox: inbox, current: current, observer: observer)
      inbox.open { sink.receive($0) }
      let registered: Input? = observer.registered == nil ? nil : .registered
      inbox.observeOuter(outer, { .inner(transform($0)) }, ended: .outerEnded, registered: registered)
      inbox.disposables.add(current)
    }
  }
}

/// What a `switchToLatest` inner observation's closures capture: the inbox and the observation's
/// generation, in one object, so that the event and the end closures need no context of their own.
/// The sink reuses it for the next inner once no closure holds it (`linkForNextInner`): no
/// allocation per switch when the previous inner was idle at the switch.
@usableFromInline
final class InnerLink<Inner, Event> {
  @usableFromInline let serializer: EventProducer<SwitchToLatestInput<Inner, Event>>
  /// Atomic: set again only while no closure holds the link, but read by the closures of the
  /// observation that holds it, on the inner's threads.
  @usableFromInline let generation: Atomic<Int>

  @inlinable
  init(serializer: EventProducer<SwitchToLatestInput<Inner, Event>>, generation: Int) {
    self.serializer = serializer
    self.generation = Atomic(generation)
  }

  @inlinable
  func ended() {
    // Relaxed: see `generation`.
    serializer.next(.innerEnded(generation: generation.load(ordering: .relaxed)))
  }
}

extension EventProducerType where Event: EventProducerType {
  /// Forwards the events of the latest inner producer this producer sent (Bond v4's
  /// `switchToLatest`): none of an earlier inner once a newer one has arrived.
  ///
  /// ```swift
  /// let outer = EventProducer<EventProducer<Int>>()
  /// outer.switchToLatest().observe { print($0) }
  /// outer.next(first); first.next(1)    // prints 1
  /// outer.next(second); first.next(2)   // prints nothing
  /// ```
  /// - Returns: a lazy producer of the latest inner producer's events. See ``SwitchToLatest``.
  @inlinable
  public func switchToLatest() -> SwitchToLatest<Self> {
    SwitchToLatest(upstream: self)
  }
}
