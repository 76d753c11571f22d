/// Observes `upstream` for `observer`, asking `decide` (if any) about each event and counting the
/// events delivered (with a `count`), and ends the observation early when `decide` says so or the
/// `count`-th event has been delivered: the upstream's observation is disposed first (its `observerCount` drops,
/// its closures are released once this delivery returns), then `registered` if still due, then
/// `finished`, once. The upstream's own end passes through, once. The returned disposable reports
/// `isDisposed` after either end.
///
/// The end may come during the upstream's registration (the replay), before its disposable exists:
/// the disposable goes into a ``SerialDisposable``, which disposes it at once when it arrives late.
@inlinable
func observeEndingEarly<Upstream: EventProducerType>(
  _ upstream: Upstream,
  _ observer: EventObserver<Upstream.Event>,
  count: Int? = nil,
  decide: ((Upstream.Event) -> EarlyEndDecision)? = nil
) -> any DisposableType {
  let sink = EarlyEndSink(observer, count: count, decide: decide)
  // Each closure captures only the sink: no context of its own to allocate.
  sink.holder.otherDisposable = upstream.observe(
    with: EventObserver(
      { sink.receive($0) },
      // Always observed: the holder must report `isDisposed` after the upstream's end.
      finished: { sink.upstreamEnded() },
      registered: observer.registered == nil ? nil : { sink.registrationEnded() },
      pressure: observer.pressure,
      // Disposed when it ends early: a `from` upstream stops pulling its sequence then.
      lifetime: sink.holder
    )
  )
  return sink.holder
}

/// One observation of an operator that ends early, in one object (one allocation besides the
/// holder): it holds the observer's closures and the ``EarlyEndStateMachine``, asks the machine and
/// performs its action. Called only inside the upstream's deliveries to it, which are never
/// concurrent (guarantee 1), so it needs no lock; `decide` is made per observation too.
@usableFromInline
final class EarlyEndSink<Event> {
  /// The returned disposable: it holds the upstream's observation.
  @usableFromInline let holder = SerialDisposable()
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
    case .registered, .ignore:
      break
    }
  }

  /// The upstream ended.
  @inlinable
  func upstreamEnded() {
    serialAccess.enter()
    let action = machine.upstreamEnded()
    serialAccess.leave()
    if case .end(let registeredDue) = action { end(registered: registeredDue) }
  }

  /// The upstream's registration ended.
  @inlinable
  func registrationEnded() {
    serialAccess.enter()
    let action = machine.registrationEnded()
    serialAccess.leave()
    if case .registered = action { registered?() }
  }

  @usableFromInline
  func end(registered registeredDue: Bool) {
    // A dispose() by the user (perhaps from inside the delivery just made) is not an end.
    if holder.isDisposed { return }
    holder.dispose()
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
