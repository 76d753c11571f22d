import Synchronization

/// Observes `upstream` for `observer`, asking `decide` (if any) about each event and counting the
/// events delivered (with a `count`), and ends the observation early when `decide` says so or the
/// `count`-th event has been delivered: the upstream's observation is disposed first (its `observerCount` drops,
/// its closures are released once this delivery returns), then `registered` if still due, then
/// `finished`, once. The upstream's own end passes through, once. The returned disposable reports
/// `isDisposed` after either end.
///
/// The returned disposable is the upstream's observation itself (disposing it releases the sink and
/// the observer's closures). The end may come during the upstream's registration (the replay),
/// before that disposable exists: the sink disposes it at once when it arrives.
@inlinable
func observeEndingEarly<Upstream: EventProducerType>(
  _ upstream: Upstream,
  _ observer: EventObserver<Upstream.Event>,
  count: Int? = nil,
  decide: ((Upstream.Event) -> EarlyEndDecision)? = nil
) -> any DisposableType {
  let sink = EarlyEndSink(observer, count: count, decide: decide)
  // Each closure captures only the sink: no context of its own to allocate.
  return sink.hold(
    upstream.observe(
      with: EventObserver(
        { sink.receive($0) },
        // Always observed: the holder must report `isDisposed` after the upstream's end.
        finished: { sink.upstreamEnded() },
        registered: observer.registered == nil ? nil : { sink.registrationEnded() },
        pressure: observer.pressure,
        // Disposed when it ends early: a `from` upstream stops pulling its sequence then.
        lifetime: sink
      )
    )
  )
}

/// One observation of an operator that ends early, in one object (one allocation): it holds the
/// observer's closures and the ``EarlyEndStateMachine``, asks the machine and performs its action,
/// and disposes the upstream's observation when it ends. Its events are called only inside the
/// upstream's deliveries to it, which are never concurrent (guarantee 1), so the machine needs no
/// lock; `decide` is made per observation too. It is the upstream's `lifetime` (disposed at the
/// end), never the user's disposable: that one is the upstream's observation, so that a disposable
/// kept after the end keeps no closure alive.
/// - Note: `dispose()` is thread-safe.
@usableFromInline
final class EarlyEndSink<Event>: DisposableType, @unchecked Sendable {
  // @unchecked: the closures are called only in the upstream's deliveries (never concurrently);
  // `upstream` is written once before `disposal` publishes it and read once by the one thread that
  // takes it (see `hold(_:)`).

  /// 0: the upstream's observation is not held yet; 1: held; 2: disposed.
  @usableFromInline let disposal = Atomic<Int>(0)
  /// The upstream's observation, once held.
  @exclusivity(unchecked) @usableFromInline var upstream: (any DisposableType)?
  @usableFromInline let event: (Event) -> Void
  @usableFromInline let finished: (() -> Void)?
  @usableFromInline let registered: (() -> Void)?
  @usableFromInline let decide: ((Event) -> EarlyEndDecision)?
  /// Debug builds: stops if two threads run this sink at once.
  @usableFromInline let serialAccess = SerialAccessCheck()
  /// Touched only by the upstream's deliveries, one at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var machine: EarlyEndStateMachine

  @inlinable
  init(_ observer: EventObserver<Event>, count: Int?, decide: ((Event) -> EarlyEndDecision)?) {
    event = observer.event
    finished = observer.finished
    registered = observer.registered
    self.decide = decide
    machine = EarlyEndStateMachine(count: count, registeredDue: observer.registered != nil)
  }

  /// An upstream event.
  @inlinable
  func receive(_ value: Event) {
    serialAccess.enter()
    // After the end no predicate runs: the rest of a replay may still reach the sink, because the
    // upstream's observation can be disposed only once its registration returns (`hold(_:)`).
    if case .ended = machine.state {
      serialAccess.leave()
      return
    }
    // The predicate (a user closure) runs before the machine decides; no lock is held here.
    let action = machine.received(decide?(value) ?? .deliver)
    serialAccess.leave()
    switch action {
    case .deliver:
      event(value)
    case .deliverThenEnd(let registeredDue):
      event(value)
      end(registered: registeredDue)
    case .end(let registeredDue):
      end(registered: registeredDue)
    case .callRegistered, .ignore:
      break  // an event never calls `registered`
    }
  }

  /// The upstream ended.
  @inlinable
  func upstreamEnded() {
    serialAccess.enter()
    let action = machine.upstreamEnded()
    serialAccess.leave()
    if case .end(let registeredDue) = action { end(registered: registeredDue, early: false) }
  }

  /// The upstream's registration ended.
  @inlinable
  func registrationEnded() {
    serialAccess.enter()
    let action = machine.registrationEnded()
    serialAccess.leave()
    if case .callRegistered = action { registered?() }
  }

  /// Holds the upstream's observation, or disposes it at once when the observation ended first,
  /// during the upstream's registration; returns it (the user's disposable).
  @inlinable
  func hold(_ observation: any DisposableType) -> any DisposableType {
    upstream = observation
    // releasing: publishes `upstream` to the thread that ends; acquiring: sees its end.
    if !disposal.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged {
      upstream = nil
      observation.dispose()
    }
    return observation
  }

  /// Whether the observation was disposed or has ended.
  @inlinable
  var isDisposed: Bool {
    // acquiring: pairs with the exchange of `takeDisposal()`.
    disposal.load(ordering: .acquiring) == 2
  }

  /// Disposes the upstream's observation; later calls do nothing.
  @inlinable
  func dispose() {
    _ = takeDisposal()
  }

  /// Disposes the upstream's observation if no other call did; returns whether this one did.
  @inlinable
  func takeDisposal() -> Bool {
    // acquiringAndReleasing: one winner; it sees the `upstream` that `hold(_:)` published.
    let previous = disposal.exchange(2, ordering: .acquiringAndReleasing)
    if previous == 1, let upstream {
      self.upstream = nil
      upstream.dispose()
    }
    return previous != 2
  }

  /// Ends the observation, once. `early`: this operator ends it (not the upstream's end), so a
  /// dispose() by the user, perhaps from inside the delivery just made, means no end: it disposed
  /// the upstream's observation, which the sink holds once registered. (The upstream's own end
  /// disposes that observation too, and is delivered only when the user has not disposed.)
  @usableFromInline
  func end(registered registeredDue: Bool, early: Bool = true) {
    // acquiring: sees the `upstream` that `hold(_:)` published.
    if early, disposal.load(ordering: .acquiring) == 1, let upstream, upstream.isDisposed { return }
    guard takeDisposal() else { return }
    if registeredDue { registered?() }
    finished?()
  }
}

/// Ends an observation at once, without observing anything: `registered` then `finished`.
/// - Returns: a disposable that is already disposed.
@inlinable
func endedObservation<Event>(_ observer: EventObserver<Event>) -> any DisposableType {
  let disposable = SerialDisposable()
  disposable.dispose()
  observer.registered?()
  observer.finished?()
  return disposable
}
