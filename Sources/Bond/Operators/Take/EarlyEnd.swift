/// What an operator that ends early (`take`, `take(while:)`) does with one upstream event.
@usableFromInline
enum EarlyEndDecision {
  /// Deliver it; more may follow.
  case deliver
  /// Deliver it, then end: it is the last one.
  case deliverThenEnd
  /// Do not deliver it; end now.
  case end
}

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
  let observation = EarlyEndObservation(observer, count: count, decide: decide)
  // Each closure captures only the observation: no context of its own to allocate.
  observation.holder.otherDisposable = upstream.observe(
    with: EventObserver(
      { observation.receive($0) },
      // Always observed: the holder must report `isDisposed` after the upstream's end.
      finished: { observation.upstreamEnded() },
      registered: observer.registered == nil ? nil : { observation.registrationEnded() },
      pressure: observer.pressure,
      // Disposed when it ends early: a `from` upstream stops pulling its sequence then.
      lifetime: observation.holder
    )
  )
  return observation.holder
}

/// The state of one observation of an operator that ends early, in one object (one allocation
/// besides the holder). Touched only inside the upstream's deliveries to it, which are never
/// concurrent (guarantee 1), so it needs no lock; `decide` is made per observation too.
@usableFromInline
final class EarlyEndObservation<Event> {
  /// The returned disposable: it holds the upstream's observation.
  @usableFromInline let holder = SerialDisposable()
  @usableFromInline let event: (Event) -> Void
  @usableFromInline let finished: (() -> Void)?
  @usableFromInline let registered: (() -> Void)?
  @usableFromInline let decide: ((Event) -> EarlyEndDecision)?
  /// The events still to deliver before the end, when counted (`take`).
  @exclusivity(unchecked) @usableFromInline var remaining: Int?
  @exclusivity(unchecked) @usableFromInline var isEnded = false
  @exclusivity(unchecked) @usableFromInline var registeredDue: Bool

  @inlinable
  init(_ observer: EventObserver<Event>, count: Int?, decide: ((Event) -> EarlyEndDecision)?) {
    event = observer.event
    finished = observer.finished
    registered = observer.registered
    registeredDue = observer.registered != nil
    self.decide = decide
    remaining = count
  }

  /// An upstream event.
  @inlinable
  func receive(_ value: Event) {
    guard !isEnded else { return }
    var decision = decide?(value) ?? .deliver
    if decision == .deliver, let count = remaining {
      remaining = count - 1
      if count == 1 { decision = .deliverThenEnd }
    }
    switch decision {
    case .deliver:
      event(value)
    case .deliverThenEnd:
      event(value)
      if !isEnded { end() }
    case .end:
      end()
    }
  }

  /// The upstream ended.
  @inlinable
  func upstreamEnded() {
    guard !isEnded else { return }
    end()
  }

  /// The upstream's registration ended.
  @inlinable
  func registrationEnded() {
    guard registeredDue, !isEnded else { return }
    registeredDue = false
    registered?()
  }

  @usableFromInline
  func end() {
    isEnded = true
    // A dispose() by the user (perhaps from inside the delivery just made) is not an end.
    if holder.isDisposed { return }
    holder.dispose()
    if registeredDue {
      registeredDue = false
      registered?()
    }
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
