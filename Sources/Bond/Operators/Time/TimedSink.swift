/// The decisions of a timed operator (``Throttle``, ``Debounce``, ``TimedCollect``) for one
/// observation, as ``TimedSink`` performs them: a pure value, kept in the sink's `LockedState`.
///
/// Each timer carries a generation number, so a timer that fires late (its window over, its event
/// replaced) does nothing. After ``disposed()`` or ``ended()`` nothing more is decided.
@usableFromInline
protocol TimedStateMachine<Input, Event>: Sendable {
  /// What the upstream sends.
  associatedtype Input: Sendable
  /// What the observer receives (the input itself, or an array of inputs).
  associatedtype Event: Sendable

  /// `registered` waits for the pending event, a registration event, to be delivered.
  var registeredAwaitsPending: Bool { get }

  /// An upstream event arrived.
  mutating func receive(_ input: Input) -> TimedReceiveAction<Event>

  /// The upstream's registration ended. Returns whether `registered` is due now.
  mutating func registrationEnded() -> Bool

  /// Stores the cancel handle of the timer of `generation`; returns it when it must be disposed
  /// (disposed or ended meanwhile, or that timer is already stale).
  mutating func timerScheduled(_ disposable: any DisposableType, generation: UInt64) -> (any DisposableType)?

  /// The timer of `generation` fired.
  mutating func fire(generation: UInt64) -> TimedFireAction<Event>

  /// Disposed (or ended): returns the timer to cancel and the pending event (outside the lock).
  mutating func disposed() -> (timer: (any DisposableType)?, pending: Event?)
}

/// What ``TimedSink`` does after an upstream event, in this order: cancel, hand `deliver` (or the
/// due registration end) to the delivery, schedule the timer of `schedule`.
@usableFromInline
struct TimedReceiveAction<Event> {
  /// Deliver this event now.
  @usableFromInline var deliver: Event?
  /// `registered` is due now (a live event replaced the registration's pending one).
  @usableFromInline var registeredDue: Bool
  /// Schedule the timer of this generation.
  @usableFromInline var schedule: UInt64?
  /// A timer to cancel.
  @usableFromInline var cancel: (any DisposableType)?
  /// A replaced event, released outside the lock.
  @usableFromInline var released: Event?

  @inlinable
  init(
    deliver: Event? = nil,
    registeredDue: Bool = false,
    schedule: UInt64? = nil,
    cancel: (any DisposableType)? = nil,
    released: Event? = nil
  ) {
    (self.deliver, self.registeredDue, self.schedule) = (deliver, registeredDue, schedule)
    (self.cancel, self.released) = (cancel, released)
  }
}

/// What ``TimedSink`` does when a timer fires: schedule the timer of `schedule`, deliver `deliver`
/// (with `endsRegistration`, `registered` is due right after it).
@usableFromInline
struct TimedFireAction<Event> {
  @usableFromInline var deliver: (event: Event, endsRegistration: Bool)?
  @usableFromInline var schedule: UInt64?

  @inlinable
  init(deliver: (event: Event, endsRegistration: Bool)? = nil, schedule: UInt64? = nil) {
    self.deliver = deliver
    self.schedule = schedule
  }
}

extension TimedStateMachine {
  /// The upstream ended: the pending event is due now (not at its timer), then the end. Returns
  /// that event (and whether `registered` is due right after it) and the timer to cancel; nothing
  /// more is decided afterwards.
  @inlinable
  mutating func ended() -> (flush: (event: Event, endsRegistration: Bool)?, cancel: (any DisposableType)?) {
    let endsRegistration = registeredAwaitsPending
    let (timer, pending) = disposed()
    return (pending.map { ($0, endsRegistration) }, timer)
  }
}

/// One observation of ``Throttle``, ``Debounce`` or ``TimedCollect``: a ``TimedStateMachine`` in
/// front of a ``ScheduledDelivery``. Returned as the observation's disposable.
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
    // The timer holds this sink until it fires or is cancelled (by the machine, the end or dispose).
    let handle = delivery.scheduler.schedule(after: seconds) { [self] in self.timerFired(generation) }
    let cancel = state.withLock { $0.timerScheduled(handle, generation: generation) }
    cancel?.dispose()
  }

  /// Runs on the scheduler.
  @usableFromInline
  func timerFired(_ generation: UInt64) {
    let (action, handOver) = state.withLock { machine -> (TimedFireAction<Event>, HandOver?) in
      let action = machine.fire(generation: generation)
      return (action, action.deliver.map { delivery.enqueue($0.event, endsRegistration: $0.endsRegistration) })
    }
    if let generation = action.schedule { scheduleTimer(generation) }
    if let handOver { delivery.perform(handOver, onScheduler: true) }
  }

  /// The upstream ended: the pending event is handed to the delivery now, then the end, in one
  /// critical section (no event can come between them); its timer is cancelled.
  @usableFromInline
  func upstreamEnded() {
    let (cancel, flush, end) = state.withLock { machine -> ((any DisposableType)?, HandOver?, HandOver) in
      let (pending, cancel) = machine.ended()
      let flush = pending.map { delivery.enqueue($0.event, endsRegistration: $0.endsRegistration) }
      return (cancel, flush, delivery.enqueueEnd())
    }
    cancel?.dispose()
    if let flush { delivery.perform(flush, onScheduler: false) }
    delivery.perform(end, onScheduler: false)
  }

  @usableFromInline
  func dispose() {
    // The delivery first: from now on no new delivery starts; it also ends the upstream observation.
    delivery.dispose()
    let (timer, pending) = state.withLock { $0.disposed() }
    timer?.dispose()
    _ = pending  // released here, outside the lock
  }
}

extension TimedSink where Machine.Input == Machine.Event {
  /// ``observe(_:with:on:seconds:machine:)``, except that with `seconds` 0 the upstream goes
  /// through a plain delivery on `scheduler` (every event goes through): `throttle` and `debounce`.
  @inlinable
  static func observeOrPassThrough<Upstream: EventProducerType>(
    _ upstream: Upstream,
    with observer: EventObserver<Event>,
    on scheduler: S,
    seconds: Double,
    machine: @autoclosure () -> Machine
  ) -> any DisposableType where Upstream.Event == Input {
    guard seconds == 0 else {
      return observe(upstream, with: observer, on: scheduler, seconds: seconds, machine: machine())
    }
    let delivery = ScheduledDelivery(scheduler: scheduler, observer: observer)
    delivery.connect(to: upstream, forwardRegistered: observer.registered != nil)
    return delivery
  }
}
