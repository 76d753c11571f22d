/// One observation of ``Throttle``, ``Debounce``, ``TimedCollect`` or ``Delay``: a
/// ``TimedStateMachine`` in front of a ``ScheduledDelivery``. Returned as the observation's disposable.
///
/// The machine decides under this sink's lock; a hand-over to the delivery is queued inside that
/// critical section (in decision order, see `ScheduledDelivery.enqueue`), and everything else
/// (timers, drains, releases) is performed after the lock is released, where the scheduler and the
/// delivery may run user code.
/// - Note: thread-safe.
@usableFromInline
final class TimedSink<Machine: TimedStateMachine, S: Scheduler>: DisposableType {
  @usableFromInline typealias Event = Machine.Event
  @usableFromInline typealias Input = Machine.Input
  @usableFromInline typealias HandOver = ScheduledDelivery<Event, S>.Machine.ReceiveAction

  @usableFromInline let delivery: ScheduledDelivery<Event, S>
  @usableFromInline let seconds: Double
  @usableFromInline let state: LockedState<Machine>

  @inlinable
  init(delivery: ScheduledDelivery<Event, S>, seconds: Double, machine: Machine) {
    self.delivery = delivery
    self.seconds = seconds
    self.state = LockedState(machine)
  }

  /// Observes `upstream` for `observer` through a new sink running `machine`. `registered` is
  /// asked of the upstream only when `observer` has one; the end always (the sink flushes at the
  /// end).
  @inlinable
  static func observe<Upstream: EventProducerType>(
    _ upstream: Upstream,
    with observer: EventObserver<Event>,
    on scheduler: S,
    seconds: Double,
    machine: Machine
  ) -> any DisposableType where Upstream.Event == Input {
    let delivery = ScheduledDelivery(scheduler: scheduler, observer: observer)
    let sink = TimedSink(delivery: delivery, seconds: seconds, machine: machine)
    let observation = upstream.observe(
      with: EventObserver(
        { sink.receive($0) },
        finished: { sink.upstreamEnded() },
        registered: observer.registered == nil ? nil : { sink.registrationEnded() }
      )
    )
    delivery.attach(observation)
    // After the upstream's registration: an event it replayed has armed a newer timer, which makes
    // this one stale (the machine hands its handle back to be cancelled).
    if let generation = machine.timerAtStart { sink.scheduleTimer(generation) }
    return sink
  }

  @inlinable
  var isDisposed: Bool { delivery.isDisposed }

  /// An upstream event (any thread).
  @inlinable
  func receive(_ input: Input) {
    let (action, handOver) = state.withLock { machine -> (TimedReceiveAction<Event>, HandOver?) in
      let action = machine.receive(input)
      if let deliver = action.deliver { return (action, delivery.enqueue(deliver)) }
      return (action, action.registeredDue ? delivery.enqueueRegistrationEnd() : nil)
    }
    action.cancel?.dispose()
    if let handOver { delivery.perform(handOver, onScheduler: false) }
    if let generation = action.schedule { scheduleTimer(generation) }
  }

  @usableFromInline
  func registrationEnded() {
    let handOver = state.withLock { machine in
      machine.registrationEnded() ? delivery.enqueueRegistrationEnd() : nil
    }
    if let handOver { delivery.perform(handOver, onScheduler: false) }
  }

  @usableFromInline
  func scheduleTimer(_ generation: UInt64) {
    // The timer holds this sink until it fires or is cancelled (by the machine, the end or dispose):
    // the machine keeps every handle, so that dispose() breaks that cycle (scheduler → action →
    // sink → delivery → scheduler) at once, and releases what the observation captured.
    let handle = delivery.scheduler.schedule(after: seconds) { [self] in self.timerFired(generation) }
    let cancel = state.withLock { $0.timerScheduled(handle, generation: generation) }
    cancel?.dispose()
  }

  /// Runs on the scheduler.
  @usableFromInline
  func timerFired(_ generation: UInt64) {
    let (action, handOver, end) = state.withLock { machine -> (TimedFireAction<Event>, HandOver?, HandOver?) in
      let action = machine.fire(generation: generation)
      let handOver = action.deliver.map { delivery.enqueue($0.event, endsRegistration: $0.endsRegistration) }
      return (action, handOver, action.ends ? delivery.enqueueEnd() : nil)
    }
    if let generation = action.schedule { scheduleTimer(generation) }
    if let handOver { delivery.perform(handOver, onScheduler: true) }
    if let end { delivery.perform(end, onScheduler: true) }
  }

  /// The upstream ended: the event due now is handed to the delivery, then the end if it is due
  /// now, in one critical section (no event can come between them); the timer is cancelled.
  @usableFromInline
  func upstreamEnded() {
    let (cancel, flush, end) = state.withLock { machine -> ((any DisposableType)?, HandOver?, HandOver?) in
      let action = machine.ended()
      let flush = action.flush.map { delivery.enqueue($0.event, endsRegistration: $0.endsRegistration) }
      return (action.cancel, flush, action.endsNow ? delivery.enqueueEnd() : nil)
    }
    cancel?.dispose()
    if let flush { delivery.perform(flush, onScheduler: false) }
    if let end { delivery.perform(end, onScheduler: false) }
  }

  @usableFromInline
  func dispose() {
    // The delivery first: from now on no new delivery starts; it also ends the upstream observation.
    delivery.dispose()
    let (timer, dropped) = state.withLock { $0.disposed() }
    timer?.dispose()
    _ = dropped  // released here, outside the lock
  }
}
