import Synchronization

/// Delivers events to one observer on a scheduler: in order, none lost (unless a buffer limit says
/// otherwise), never two at once, nothing new once disposed. The engine of ``DeliverOn``, and the
/// output side of ``Throttle`` and ``Debounce``.
///
/// Senders push into a buffer under a short lock; the first push into an idle delivery schedules
/// one drain, which empties the buffer on the scheduler (whole batches in one lock in unbounded
/// mode), so a burst costs a handful of `schedule` calls, not one per event. After
/// ``drainShare`` events a drain schedules its successor and returns, so that a serial queue's
/// other work gets a turn.
///
/// Disposal sets an atomic flag that the drain checks before each delivery, takes the observer and
/// the waiting events out (released at once), and disposes the upstream observation. A delivery
/// already running on another thread runs to its end; no new one starts.
///
/// - Note: thread-safe.
@usableFromInline
final class ScheduledDelivery<Event: Sendable, S: Scheduler>: DisposableType {
  @usableFromInline typealias Machine = DeliverOnStateMachine<Event>

  @usableFromInline let scheduler: S
  @usableFromInline let state: LockedState<Machine>
  /// Set by the first `dispose()`; checked by the drain before each delivery.
  @usableFromInline let disposedFlag = Atomic<Bool>(false)
  @usableFromInline let statistics: DeliveryStatistics?
  /// Whether a buffer limit applies (the drain then takes one event at a time).
  @usableFromInline let isBounded: Bool

  /// Events one drain delivers before it lets the scheduler run something else.
  @usableFromInline static var drainShare: Int { 1024 }

  @inlinable
  init(
    scheduler: S,
    observer: @escaping (Event) -> Void,
    registered: (() -> Void)?,
    bufferLimit: Int = .max,
    overflowPolicy: DeliveryOverflowPolicy = .dropOldest,
    statistics: DeliveryStatistics? = nil
  ) {
    self.scheduler = scheduler
    self.statistics = statistics
    self.isBounded = bufferLimit != .max
    self.state = LockedState(
      Machine(
        observer: UncheckedSendable(observer),
        registered: registered.map { UncheckedSendable($0) },
        bufferLimit: bufferLimit,
        overflowPolicy: overflowPolicy
      )
    )
  }

  /// Whether `dispose()` was called: the drain checks it before each delivery.
  @inlinable
  var isStopped: Bool {
    disposedFlag.load(ordering: .acquiring)
  }

  /// Disposed, or its upstream observation ended (the upstream producer was deallocated).
  @inlinable
  var isDisposed: Bool {
    isStopped || state.withLock { $0.upstream?.isDisposed ?? false }
  }

  /// Queues `event` for delivery (from any thread). With `endsRegistration`, the `registered`
  /// callback is due right after it. With `onScheduler` (the caller is an action running on the
  /// scheduler), an idle delivery drains here instead of scheduling a drain.
  @inlinable
  func send(_ event: Event, endsRegistration: Bool = false, onScheduler: Bool = false) {
    let action = state.withLock { $0.eventReceived(event, endsRegistration: endsRegistration) }
    perform(action, onScheduler: onScheduler)
  }

  /// The locked half of ``send(_:endsRegistration:onScheduler:)``: queues `event` and returns what
  /// to ``perform(_:onScheduler:)`` once the caller has released its own lock. An operator that
  /// decides under its own lock (throttle, debounce) enqueues inside that critical section, so its
  /// decisions reach the delivery in the order they were made; a thread preempted between deciding
  /// and handing over cannot let a newer decision overtake it. Takes only this delivery's lock and
  /// runs no user code.
  @inlinable
  func enqueue(_ event: Event, endsRegistration: Bool = false) -> Machine.ReceiveAction {
    state.withLock { $0.eventReceived(event, endsRegistration: endsRegistration) }
  }

  /// The locked half of ``endRegistration(onScheduler:)``, for the same reason as ``enqueue(_:endsRegistration:)``.
  @usableFromInline
  func enqueueRegistrationEnd() -> Machine.ReceiveAction {
    state.withLock { $0.registrationEnded() }
  }

  /// The upstream's registration ended: `registered` is due after the events now waiting.
  @usableFromInline
  func endRegistration(onScheduler: Bool = false) {
    let action = state.withLock { $0.registrationEnded() }
    perform(action, onScheduler: onScheduler)
  }

  @inlinable
  func perform(_ action: Machine.ReceiveAction, onScheduler: Bool) {
    switch action {
    case .none:
      break
    case .startDrain:
      if onScheduler { drain() } else { scheduleDrain() }
    case .dropped(let oldest):
      statistics?.recordDrop()
      _ = oldest  // released here, outside the lock
    }
  }

  /// Observes `upstream` into this delivery (forwarding its registration's end when `forwardRegistered`)
  /// and keeps the observation to dispose with this delivery.
  @inlinable
  func connect<Upstream: EventProducerType>(to upstream: Upstream, forwardRegistered: Bool)
  where Upstream.Event == Event {
    let observation: any DisposableType
    if forwardRegistered {
      observation = upstream.observe({ self.send($0) }, registered: { self.endRegistration() })
    } else {
      observation = upstream.observe { self.send($0) }
    }
    attach(observation)
  }

  /// Keeps `disposable` (the upstream observation) to dispose with this delivery.
  @usableFromInline
  func attach(_ disposable: any DisposableType) {
    let late = state.withLock { $0.attach(disposable) }
    late?.dispose()
  }

  @inlinable
  func scheduleDrain() {
    // Called after the lock is released: a scheduler may run the action at once (or take a lock).
    scheduler.schedule { [self] in self.drain() }
  }

  /// Runs on the scheduler. Only one drain runs at a time (see ``DeliverOnStateMachine``).
  @inlinable
  func drain() {
    if isBounded { drainOneByOne() } else { drainBatches() }
  }

  @inlinable
  func drainBatches() {
    var batch = WorkQueue<Event>()
    var delivered = 0
    while true {
      let step = state.withLock { $0.nextBatch(&batch, mayContinue: delivered < Self.drainShare) }
      // The observer and `registered` are called here, outside the lock: they are user code and
      // may send more events into this delivery (which queue behind this batch).
      switch step {
      case .stop:
        return
      case .reschedule:
        scheduleDrain()
        return
      case .deliver(let observer, let registered):
        var offset = 0
        while let event = batch.pop() {
          if let registered, registered.offset == offset {
            guard !isStopped else { return }
            registered.callback.value()
          }
          guard !isStopped else { return }
          observer.value(event)
          offset += 1
        }
        if let registered, registered.offset == offset {
          guard !isStopped else { return }
          registered.callback.value()
        }
        delivered += offset
      }
    }
  }

  @inlinable
  func drainOneByOne() {
    var delivered = 0
    while true {
      let step = state.withLock { $0.nextEvent(mayContinue: delivered < Self.drainShare) }
      // Called outside the lock (user code), see drainBatches().
      switch step {
      case .stop:
        return
      case .reschedule:
        scheduleDrain()
        return
      case .registered(let callback):
        guard !isStopped else { return }
        callback.value()
      case .deliver(let observer, let event):
        guard !isStopped else { return }
        observer.value(event)
        delivered += 1
      }
    }
  }

  @usableFromInline
  func dispose() {
    // acquiringAndReleasing: one winner; the drain that acquires `true` stops before its next delivery.
    guard !disposedFlag.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let released = state.withLock { $0.disposed() }
    released.upstream?.dispose()
    // `released` ends here, outside the lock: the observer, the callback and the waiting events
    // may hold the last references to user objects.
  }
}
