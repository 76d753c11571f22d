import Synchronization

/// Delivers events to one observer on a scheduler: in order, none lost (unless a buffer limit says
/// otherwise), never two at once, nothing new once disposed. The engine of ``DeliverOn``,
/// ``Batches`` and ``Partition``, and the output side of ``Throttle``, ``Debounce``, ``Delay`` and
/// ``TimedCollect``; its decisions are ``ScheduledDeliveryStateMachine``'s, kept under its lock
/// beside the observer's closures and the upstream observation (``ScheduledDeliveryLockedState``).
///
/// Senders push into a buffer under a short lock; the first push into an idle delivery schedules
/// one drain, which empties the buffer on the scheduler (whole batches in one lock in unbounded
/// mode), so a burst costs a handful of `schedule` calls, not one per event. After
/// ``drainShare`` events a drain schedules its successor and returns, so that a serial queue's
/// other work gets a turn.
///
/// The upstream's end is delivered by the drain after every waiting event (a buffer limit never
/// drops it): the delivery is then over, like a disposed one, and `finished` is called.
///
/// Disposal sets an atomic flag that the drain checks before each delivery, takes the observer and
/// the waiting events out (released at once), and disposes the upstream observation. A delivery
/// already running on another thread runs to its end; no new one starts.
///
/// - Note: thread-safe.
@usableFromInline
final class ScheduledDelivery<Event: Sendable, S: Scheduler>: DisposableType {
  @usableFromInline typealias Machine = ScheduledDeliveryStateMachine<Event>
  @usableFromInline typealias Locked = ScheduledDeliveryLockedState<Event>

  @usableFromInline let scheduler: S
  @usableFromInline let state: LockedState<Locked>
  /// Set by the first `dispose()`; checked by the drain before each delivery.
  @usableFromInline let disposedFlag = Atomic<Bool>(false)
  @usableFromInline let statistics: DeliveryStatistics?
  /// Latency sampling (when `statistics` asks for it): picks the timed events and reads the clock.
  @usableFromInline let sampler: LatencySampler?
  /// Whether a buffer limit applies (the drain then takes one event at a time).
  @usableFromInline let isBounded: Bool
  /// In array mode (``Batches``), the most events per array; 0 delivers events one by one.
  @usableFromInline let maxArrayCount: Int
  /// `.backpressure`: the gate this stage raises when `bufferLimit` events wait (flow control);
  /// passed upstream with its observation. Shared by a partition's lanes.
  @usableFromInline let upstreamGate: FlowGate?
  /// The pressure of what this stage delivers to (its observer's, or a partition lane's producer):
  /// while it is under pressure the drain pauses after the event in hand.
  @usableFromInline let downstreamGate: FlowGate?

  /// Events one drain delivers before it lets the scheduler run something else.
  @usableFromInline static var drainShare: Int { 1024 }

  @inlinable
  init(
    scheduler: S,
    observer: EventObserver<Event>,
    bufferLimit: Int = .max,
    overflowPolicy: DeliveryOverflowPolicy = .dropOldest,
    statistics: DeliveryStatistics? = nil,
    upstreamGate: FlowGate? = nil,
    downstreamGate: FlowGate? = nil
  ) {
    self.scheduler = scheduler
    self.statistics = statistics
    self.sampler = LatencySampler.make(for: statistics, on: scheduler)
    // A drain that may pause for its downstream takes one event at a time, so that it stops after
    // the event in hand, not after a whole burst.
    self.isBounded = bufferLimit != .max || downstreamGate != nil
    self.maxArrayCount = 0
    self.upstreamGate = upstreamGate
    self.downstreamGate = downstreamGate
    self.state = LockedState(
      Locked(
        observer: UncheckedSendable(observer.event),
        registered: observer.registered.map { UncheckedSendable($0) },
        finished: observer.finished.map { UncheckedSendable($0) },
        machine: Machine(
          awaitsRegistered: observer.registered != nil,
          bufferLimit: bufferLimit,
          overflowPolicy: overflowPolicy
        )
      )
    )
  }

  /// Array mode (``Batches``): the same buffer and drain, but each burst the drain takes is handed
  /// to `observer` as arrays of at most `maxCount` events (one allocation per array), with
  /// `registered` (if any) between the array that ends the upstream's replay and the next. With a
  /// `bufferLimit`, the drain takes one array at a time, so the waiting events stay in the buffer,
  /// where the policy applies to them.
  @usableFromInline
  init(
    scheduler: S,
    arrays observer: EventObserver<[Event]>,
    maxCount: Int,
    bufferLimit: Int = .max,
    overflowPolicy: DeliveryOverflowPolicy = .dropOldest,
    statistics: DeliveryStatistics? = nil,
    upstreamGate: FlowGate? = nil
  ) {
    self.scheduler = scheduler
    self.statistics = statistics
    self.sampler = LatencySampler.make(for: statistics, on: scheduler)
    // Bounded, or watched by a downstream gate: one array (at most `maxCount`) per step.
    self.isBounded = bufferLimit != .max || observer.pressure != nil
    self.maxArrayCount = maxCount
    self.upstreamGate = upstreamGate
    self.downstreamGate = observer.pressure
    var machine = Machine(
      awaitsRegistered: observer.registered != nil,
      bufferLimit: bufferLimit,
      overflowPolicy: overflowPolicy
    )
    if isBounded { machine.maxArrayCount = maxCount }
    self.state = LockedState(
      Locked(
        observer: nil,
        arrayObserver: UncheckedSendable(observer.event),
        registered: observer.registered.map { UncheckedSendable($0) },
        finished: observer.finished.map { UncheckedSendable($0) },
        machine: machine
      )
    )
  }

  /// Disposed, or over: its end was delivered (the upstream ended: it finished or was deallocated),
  /// on the scheduler after the last event. The drain checks it before each delivery.
  @inlinable
  var isDisposed: Bool { disposedFlag.load(ordering: .acquiring) }

  /// Queues `event` for delivery (from any thread): the upstream's observer.
  @inlinable
  func send(_ event: Event) {
    // Latency sampling off (no sampler): a nil check.
    if let sampler { return sendSampling(event, sampler: sampler) }
    let action = state.withLock { $0.machine.eventReceived(event) }
    if let statistics { countBuffered(action, in: statistics) }
    perform(action, onScheduler: false)
  }

  /// ``send(_:)`` with latency sampling on: a picked event is timed from now. The clock is read
  /// before the lock (a scheduler's `now` may be user code).
  @inlinable
  func sendSampling(_ event: Event, sampler: LatencySampler) {
    let action: Machine.ReceiveAction
    if let start = sampler.startIfSampled() {
      action = state.withLock { $0.machine.eventReceived(event, sampleStart: start) }
    } else {
      action = state.withLock { $0.machine.eventReceived(event) }
    }
    if let statistics { countBuffered(action, in: statistics) }
    perform(action, onScheduler: false)
  }

  /// `bufferedCount`: an event taken into the buffer counts once (a drop takes one out as it
  /// puts one in, or keeps none); an ignored one (disposed, ended) not at all.
  @inlinable
  func countBuffered(_ action: Machine.ReceiveAction, in statistics: DeliveryStatistics) {
    switch action {
    case .queued, .startDrain, .pressure: statistics.recordBuffered(1)
    case .none, .dropped: break
    }
  }

  /// The locked half of ``send(_:)``: queues `event` and returns what
  /// to ``perform(_:onScheduler:)`` once the caller has released its own lock. An operator that
  /// decides under its own lock (throttle, debounce) enqueues inside that critical section, so its
  /// decisions reach the delivery in the order they were made; a thread preempted between deciding
  /// and handing over cannot let a newer decision overtake it. Takes only this delivery's lock and
  /// runs no user code.
  @inlinable
  func enqueue(_ event: Event, endsRegistration: Bool = false) -> Machine.ReceiveAction {
    state.withLock { $0.machine.eventReceived(event, endsRegistration: endsRegistration) }
  }

  /// The locked half of ``endRegistration()``, for the same reason as ``enqueue(_:endsRegistration:)``.
  @usableFromInline
  func enqueueRegistrationEnd() -> Machine.ReceiveAction {
    state.withLock { $0.machine.registrationEnded() }
  }

  /// The upstream's registration ended: `registered` is due after the events now waiting.
  @usableFromInline
  func endRegistration() {
    let action = state.withLock { $0.machine.registrationEnded() }
    perform(action, onScheduler: false)
  }

  /// The upstream ended: the end is delivered after the events now waiting.
  @usableFromInline
  func finish() {
    let (action, releases) = state.withLock { ($0.machine.endReceived(), $0.machine.releasesPressureAtEnd()) }
    if releases { upstreamGate?.release() }
    perform(action, onScheduler: false)
  }

  /// The locked half of ``finish()``, for the same reason as ``enqueue(_:endsRegistration:)``.
  @usableFromInline
  func enqueueEnd() -> Machine.ReceiveAction {
    state.withLock { $0.machine.endReceived() }
  }

  @inlinable
  func perform(_ action: Machine.ReceiveAction, onScheduler: Bool) {
    switch action {
    case .none, .queued:
      break
    case .startDrain:
      if onScheduler { drain() } else { scheduleDrain() }
    case .dropped(let oldest):
      statistics?.recordDrop()
      _ = oldest  // released here, outside the lock
    case .pressure(let startDrain):
      statistics?.recordPressure()
      // Outside the lock: the gate's transition reaches the producers upstream (their waiting
      // senders, their `writability` observers).
      upstreamGate?.raise()
      if startDrain {
        if onScheduler { drain() } else { scheduleDrain() }
      }
    }
  }

  /// Observes `upstream` into this delivery (its events and its end; its registration's end when
  /// `forwardRegistered`) and keeps the observation to dispose with this delivery.
  ///
  /// The end is asked for even when the observer has no `finished`: the delivery must learn that it
  /// is over to release the observer and report `isDisposed`. `registered` stays `nil` when nobody
  /// asked, so no drain is scheduled only to call an empty closure.
  @inlinable
  func connect<Upstream: EventProducerType>(to upstream: Upstream, forwardRegistered: Bool)
  where Upstream.Event == Event {
    let observation = upstream.observe(
      with: EventObserver(
        { self.send($0) },
        finished: { self.finish() },
        registered: forwardRegistered ? { self.endRegistration() } : nil,
        pressure: upstreamGate
      )
    )
    attach(observation)
  }

  deinit {
    // Gone without a dispose() or an end (nothing else holds it): no sender waits on it any more.
    if let upstreamGate, state.withLock({ $0.machine.releasesPressureAtEnd() }) { upstreamGate.release() }
  }

  /// What a stage that stops (disposed, or ended) owes its counters and its gate: the waiting events
  /// leave `bufferedCount`, and a stage under pressure releases it (no sender waits on a stage that
  /// is gone).
  @usableFromInline
  func settle(_ released: Locked.Released) {
    let waiting = released.disposal.buffer.count
    if waiting > 0 { statistics?.recordBuffered(-waiting) }
    if released.disposal.releasesPressure { upstreamGate?.release() }
  }

  /// Keeps `disposable` (the upstream observation) to dispose with this delivery.
  @usableFromInline
  func attach(_ disposable: any DisposableType) {
    let late = state.withLock { $0.attach(disposable) }
    late?.dispose()
  }

  @usableFromInline
  func dispose() {
    // acquiringAndReleasing: one winner; the drain that acquires `true` stops before its next delivery.
    guard !disposedFlag.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let released = state.withLock { $0.disposed() }
    released.upstream?.dispose()
    settle(released)
    // `released` ends here, outside the lock: the observer, the callbacks (`finished` too, never
    // called after a dispose) and the waiting events may hold the last references to user objects.
  }
}
