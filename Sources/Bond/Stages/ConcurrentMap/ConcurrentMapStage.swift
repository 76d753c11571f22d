import Synchronization

/// One observation of `map(maxConcurrent:)`, `mapUnordered` or `tryMap`: the buffer of waiting
/// events, at most `maxConcurrent` worker tasks that take them one after another and run the
/// transform, and the delivery of the results, one at a time, on a worker's thread.
///
/// Workers are unstructured tasks (`Task.detached`: the transforms never inherit the actor of the
/// code that observed) that prefer ``DispatchTaskExecutor`` (Dispatch's global concurrent queue,
/// not the cooperative pool: see there why), started when events wait and
/// fewer than `maxConcurrent` workers live; a worker takes events until none may be taken, then
/// ends: under a steady load there is no task per event. The worker that finishes a result
/// delivers it, and every result ready after it, unless another worker is delivering (that one
/// then delivers it): one delivery at a time, in order for an ordered stage. While every worker
/// lives, a sender leaves its event in the ``ConcurrentMapIntake`` (a lock of its own) rather than
/// taking the stage's lock.
///
/// `dispose()` cancels the running workers (cooperative: a transform that ignores cancellation runs
/// to its end, and its result is dropped), starts no new one, drops the waiting events and the
/// results, and releases the stage's pressure; no delivery starts after it returns.
/// - Note: thread-safe.
@usableFromInline
final class ConcurrentMapStage<Input: Sendable, Output: Sendable>: DisposableType, @unchecked Sendable {
  // @unchecked: the state is behind its lock; the observer's closures are called by one deliverer
  // at a time (`isDelivering`), and `upstream` is written once, under the lock.
  @usableFromInline typealias Machine = ConcurrentMapStateMachine<Input, Output>

  /// The machine and the workers' task handles; the stage decides under this lock and acts after it.
  @usableFromInline let state: LockedState<ConcurrentMapStageState<Input, Output>>
  /// The senders' events on their way to the machine (see ``ConcurrentMapIntake``); its lock is
  /// taken inside `state`'s, never the other way round.
  @usableFromInline let intake = LockedState(ConcurrentMapIntake<Input>())
  @usableFromInline let transform: @Sendable (Input) async -> Output
  @usableFromInline let observer: EventObserver<Output>
  /// The stage's gate (its waiting events reached `bufferLimit`), passed upstream.
  @usableFromInline let gate = FlowGate()
  /// Set by the first `dispose()` or by the end; checked before each delivery.
  @usableFromInline let stopped = Atomic<Bool>(false)
  @usableFromInline let upstream = LockedState<(any DisposableType)?>(nil)
  /// Counts the waiting events, the results delivered and the pressures (when given).
  @usableFromInline let statistics: DeliveryStatistics?
  /// Whether the workers can hold every thread of ``DispatchTaskExecutor``: then the one that
  /// releases the pressure yields to the senders it resumed (see `work(as:)`).
  @usableFromInline let yieldsOnRelease: Bool

  @inlinable
  init(
    maxConcurrent: Int,
    bufferLimit: Int,
    ordered: Bool,
    statistics: DeliveryStatistics? = nil,
    observer: EventObserver<Output>,
    transform: @escaping @Sendable (Input) async -> Output
  ) {
    state = LockedState(
      ConcurrentMapStageState(
        machine: Machine(maxConcurrent: maxConcurrent, bufferLimit: bufferLimit, ordered: ordered)
      )
    )
    self.statistics = statistics
    yieldsOnRelease = maxConcurrent >= DispatchTaskExecutor.threads
    self.transform = transform
    self.observer = observer
  }

  /// Observes `upstream` into this stage, with the stage's pressure.
  @inlinable
  func connect<Upstream: EventProducerType>(to upstream: Upstream) where Upstream.Event == Input {
    let observation = upstream.observe(
      with: EventObserver(
        { self.received($0) },
        finished: { self.upstreamEnded() },
        registered: observer.registered == nil ? nil : { self.registrationEnded() },
        pressure: gate
      )
    )
    let late = self.upstream.withLock { slot -> Bool in
      if isDisposed { return true }
      slot = observation
      return false
    }
    if late { observation.dispose() }
  }

  /// An event: into the intake when it is open and has room (the stage's lock is not taken), else
  /// through the machine.
  @inlinable
  func received(_ input: Input) {
    if intake.withLock({ $0.accept(input) }) {
      statistics?.recordBuffered(1)
      return
    }
    guard let statistics else {
      return perform(state.withLock { locked in intake.withLock { locked.machine.received(input, intake: &$0) } })
    }
    // Whether the event was taken in (not ignored: disposed, ended), read in the same lock.
    let (actions, queued) = state.withLock { locked -> (Machine.Actions, Bool) in
      let queued = locked.machine.state == .open
      return (intake.withLock { locked.machine.received(input, intake: &$0) }, queued)
    }
    if queued { statistics.recordBuffered(1) }
    perform(actions)
  }

  /// The upstream's registration ended (its intake's events are the registration's too).
  @inlinable
  func registrationEnded() {
    state.withLock { locked in intake.withLock { locked.machine.registrationEnded(intake: &$0) } }
  }

  /// Raises or releases the gate, starts the workers, delivers the end (outside the lock).
  @inlinable
  func perform(_ actions: Machine.Actions) {
    if let raise = actions.pressure {
      if raise {
        statistics?.recordPressure()
        gate.raise()
      } else {
        gate.release()
      }
    }
    for worker in actions.start { start(worker) }
    if actions.end { deliverEnd() }
  }

  @inlinable
  func start(_ worker: Int) {
    let task = Task.detached(executorPreference: DispatchTaskExecutor.shared) { [self] in
      await self.work(as: worker)
    }
    if state.withLock({ $0.started(task, worker: worker) }) { task.cancel() }
  }

  /// Whether the stage downstream is under pressure now (then workers take no new event).
  @inlinable
  var downstreamPressured: Bool { observer.pressure?.isPressured ?? false }

  /// A worker's loop: take an event, run the transform, deliver (or leave the result to the one
  /// delivering), until nothing may be taken. Each step after the transform is one critical
  /// section: storing the result with the first delivery (or the next take), and the last delivery
  /// with the next take.
  // Inlinable (and so specialized in the user's module): unspecialized, each lock and each call
  // into the machine looks up generic metadata.
  @inlinable
  func work(as worker: Int) async {
    var step = take(worker: worker)
    while true {
      switch step {
      case .stop:
        return
      case .end:
        return deliverEnd()
      case .pause:
        return pauseForDownstream()
      case .needsIntake:
        preconditionFailure("ConcurrentMapStage.work: a step that needs the intake left the lock")
      case .again:
        step = take(worker: worker)
      case .release:
        gate.release()
        // The release resumed the waiting senders (their tasks are enqueued now); this worker
        // holds no event. The workers and a sending task share Dispatch's threads (one per core):
        // when the workers can hold every one, a worker that takes on keeps its thread until the
        // buffer runs dry, so a sender resumed at `bufferLimit / 2` would run only then. Yielding, the worker runs again after them (once per
        // `bufferLimit / 2` events at most). With fewer workers than threads a sender finds a
        // free one, and a yield would only make this worker wait for a thread to wake.
        if yieldsOnRelease { await Task.yield() }
        step = take(worker: worker)
      case .event(let sequence, let input):
        statistics?.recordBuffered(-1)  // taken by this worker: no longer waiting
        let output = await transform(input)
        let pressured = downstreamPressured
        var delivery = state.withLock { locked in
          let delivery = locked.machine.finished(output, sequence: sequence, downstreamPressured: pressured)
          return deliveryLocked(&locked, delivery, worker: worker, downstreamPressured: pressured)
        }
        // Results this worker delivered in this run, added to `deliveredCount` once, at its end.
        var handed = 0
        while true {
          switch delivery {
          case .deliver(let output):
            // acquiring: pairs with dispose()'s exchange; no delivery starts after it returned.
            if !stopped.load(ordering: .acquiring) {
              observer.event(output)
              handed += 1
            }
          case .registered:
            if !stopped.load(ordering: .acquiring) { observer.registered?() }
          case .done(let actions, let next):
            if handed > 0 { statistics?.recordDelivered(handed) }
            perform(actions)
            step = next
          }
          if case .done = delivery { break }
          let pressured = downstreamPressured
          delivery = state.withLock { locked in
            let delivery = locked.machine.nextDelivery(downstreamPressured: pressured)
            return deliveryLocked(&locked, delivery, worker: worker, downstreamPressured: pressured)
          }
        }
      }
    }
  }

  /// A worker stopped because the stage downstream is under pressure: the release wakes the stage
  /// (``resume()``); a release that came first resumes it now.
  @inlinable
  func pauseForDownstream() {
    guard let downstream = observer.pressure, downstream.wakeOnRelease({ [self] in self.resume() }) else {
      return resume()
    }
  }

  /// The downstream released its pressure: starts the workers it paused (or delivers the end).
  @inlinable
  func resume() {
    perform(state.withLock { $0.machine.resumed() })
  }

  @inlinable
  func upstreamEnded() {
    perform(state.withLock { locked in intake.withLock { locked.machine.upstreamEnded(intake: &$0) } })
  }

  /// The end, after every result: unless a `dispose()` won, calls `finished`; then lets go of the
  /// upstream.
  @inlinable
  func deliverEnd() {
    // acquiringAndReleasing: exactly one of this and a racing dispose() wins.
    let isEnd = !stopped.exchange(true, ordering: .acquiringAndReleasing)
    let observation = upstream.withLock { slot -> (any DisposableType)? in
      defer { slot = nil }
      return slot
    }
    observation?.dispose()
    if isEnd { observer.finished?() }
  }

  @usableFromInline
  var isDisposed: Bool { stopped.load(ordering: .acquiring) }

  @usableFromInline
  func dispose() {
    // acquiringAndReleasing: one winner; a deliverer that acquires `true` delivers nothing more.
    guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let (tasks, releases, waiting) = state.withLock { locked in
      let (releases, waiting) = intake.withLock { locked.machine.disposed(intake: &$0) }
      return (locked.disposed(), releases, waiting)
    }
    // The waiting events are let go: they leave `bufferedCount`.
    if waiting > 0 { statistics?.recordBuffered(-waiting) }
    if releases { gate.release() }
    for task in tasks { task.cancel() }
    let observation = upstream.withLock { slot -> (any DisposableType)? in
      defer { slot = nil }
      return slot
    }
    observation?.dispose()
  }
}
