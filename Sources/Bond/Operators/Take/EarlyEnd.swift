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

/// Observes `upstream` for `observer`, asking `decide` about each event, and ends the observation
/// early when it says so: the upstream's observation is disposed first (its `observerCount` drops,
/// its closures are released once this delivery returns), then `registered` if still due, then
/// `finished`, once. The upstream's own end passes through, once. The returned disposable reports
/// `isDisposed` after either end.
///
/// The end may come during the upstream's registration (the replay), before its disposable exists:
/// the disposable goes into a ``SerialDisposable``, which disposes it at once when it arrives late.
/// The state is per observation and touched only inside the upstream's deliveries to it, which are
/// never concurrent (guarantee 1), so it needs no lock; `decide` is made per observation too.
@inlinable
func observeEndingEarly<Upstream: EventProducerType>(
  _ upstream: Upstream,
  _ observer: EventObserver<Upstream.Event>,
  decide: @escaping (Upstream.Event) -> EarlyEndDecision
) -> any DisposableType {
  let holder = SerialDisposable()
  var isEnded = false
  var registeredDue = observer.registered != nil
  let registered = observer.registered
  let finished = observer.finished
  let event = observer.event
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
  let upstreamObserver = EventObserver<Upstream.Event>(
    { value in
      guard !isEnded else { return }
      switch decide(value) {
      case .deliver:
        event(value)
      case .deliverThenEnd:
        event(value)
        if !isEnded { end() }
      case .end:
        end()
      }
    },
    // Always observed: the holder must report `isDisposed` after the upstream's end.
    finished: {
      guard !isEnded else { return }
      end()
    },
    registered: registered.map { registered in
      {
        guard registeredDue, !isEnded else { return }
        registeredDue = false
        registered()
      }
    }
  )
  holder.otherDisposable = upstream.observe(with: upstreamObserver)
  return holder
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
