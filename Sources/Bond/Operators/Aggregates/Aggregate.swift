/// The producer behind the aggregates (``EventProducerType/count()``, ``EventProducerType/last()``,
/// ``EventProducerType/contains(where:)``, ``EventProducerType/allSatisfy(_:)``,
/// ``EventProducerType/min(by:)``, ``EventProducerType/max(by:)``): one event, then the end.
///
/// Each observer folds the events it sees (the replay included) into a `State` of its own,
/// starting from `initial`. `step` may answer early: its answer is delivered at once, then the
/// observation stops observing the upstream and ends, as ``EventProducerType/take(_:)`` does (the
/// same machinery: `observeEndingEarly`). Otherwise, at the upstream's end, `result` of the state
/// is delivered (if not `nil`), then the end. A `dispose()` from inside that delivery is not an
/// end: no `finished` follows, as with ``EventProducerType/collect()``.
///
/// No allocation per event: the state lives in the observation, allocated once per observer.
/// - Note: thread-safe as far as `Upstream` is; `step` and `result` run on the delivering thread.
@usableFromInline
struct Aggregate<Upstream: EventProducerType, State, Output>: EventProducerType {
  /// The producer whose events are aggregated.
  @usableFromInline let upstream: Upstream
  /// The state each observer starts from.
  @usableFromInline let initial: State
  /// Folds one event into the state; an answer ends the observation at once.
  @usableFromInline let step: (inout State, Upstream.Event) -> Output?
  /// What to deliver at the upstream's end; `nil`: only the end.
  @usableFromInline let result: (State) -> Output?

  @inlinable
  init(
    _ upstream: Upstream,
    initial: State,
    step: @escaping (inout State, Upstream.Event) -> Output?,
    result: @escaping (State) -> Output?
  ) {
    self.upstream = upstream
    self.initial = initial
    self.step = step
    self.result = result
  }

  /// At most 1, and only when the upstream replays something (an answer found in the replay).
  @inlinable
  var replayLength: Int { Swift.min(1, upstream.replayLength) }

  /// Observes the upstream once for `observer`: the answer as described above; `registered` passes
  /// through; the upstream's end is always observed (it delivers the result).
  @inlinable
  @discardableResult
  func observe(with observer: EventObserver<Output>) -> any DisposableType {
    let step = self.step
    let result = self.result
    let userDisposed = SimpleDisposable()
    // Touched only inside the upstream's deliveries to this observation, which are never
    // concurrent (guarantee 1), so plain captured vars are safe here.
    var state = initial
    var answer: Output?
    let upstreamObservation = observeEndingEarly(
      upstream,
      EventObserver<Upstream.Event>(
        { _ in
          // Reached for every event (`.deliver`); delivers only the early answer.
          if let answer { observer.event(answer) }
        },
        finished: {
          if answer == nil, let last = result(state) { observer.event(last) }
          // A dispose() by the user from inside that delivery is not an end (an acquiring load,
          // paired with the releasing store of its dispose()).
          if userDisposed.isDisposed { return }
          observer.finished?()
        },
        registered: observer.registered,
        pressure: observer.pressure
      ),
      decide: { event in
        guard let found = step(&state, event) else { return .deliver }
        answer = found
        return .deliverThenEnd
      }
    )
    return CollectDisposable(userDisposed: userDisposed, upstream: upstreamObservation)
  }
}
