extension EventProducerType where Event: Sendable {
  /// Delivers an event on `queue` only after `seconds` have passed without a newer one.
  ///
  /// Each event replaces the one waiting and restarts the wait; when the wait ends, the waiting
  /// event is delivered. With `seconds` 0 every event is delivered, in order, on `queue`.
  ///
  /// ```swift
  /// searchField.text.debounce(seconds: 0.3, queue: .main).observe { query in search(query) }
  /// ```
  ///
  /// | time (s)   | 0 | 0.5 | 1.5 | 2 | 2.5 |
  /// |------------|---|-----|-----|---|-----|
  /// | upstream   | 1 | 2   |     | 3 |     |
  /// | delivered  |   |     | 2   |   |     |
  ///
  /// (`seconds` 1; 3 is delivered at 3.) Disposing drops the waiting event (released at once) and
  /// cancels its timer.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @inlinable
  public func debounce<S: Scheduler>(seconds: Double, queue: S) -> Debounce<Self, S> {
    precondition(seconds >= 0, "debounce(seconds:queue:): seconds must be 0 or more, got \(seconds)")
    return Debounce(upstream: self, seconds: seconds, scheduler: queue)
  }
}

/// The producer that ``EventProducerType/debounce(seconds:queue:)`` returns. A light value; each
/// observation has its own timer.
/// - Note: thread-safe to observe from any thread; the upstream may send from several threads;
///   observers are called on the scheduler, one event at a time, in order.
public struct Debounce<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = Upstream.Event

  @usableFromInline let upstream: Upstream
  @usableFromInline let seconds: Double
  @usableFromInline let scheduler: S

  @inlinable
  init(upstream: Upstream, seconds: Double, scheduler: S) {
    self.upstream = upstream
    self.seconds = seconds
    self.scheduler = scheduler
  }

  /// The most events the registration can deliver: 1 if the upstream replays (its replay collapses
  /// to its last event), all of them when `seconds` is 0.
  @inlinable
  public var replayLength: Int {
    seconds == 0 ? upstream.replayLength : Swift.min(upstream.replayLength, 1)
  }

  /// Registers `observer`, called on the scheduler with the debounced events.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void) -> any DisposableType {
    subscribe(observer, registered: nil)
  }

  /// Registers `observer`; `registered` is called on the scheduler right after the event that comes
  /// from the registration (the upstream's replay), see `DebounceStateMachine`.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void, registered: @escaping () -> Void) -> any DisposableType {
    subscribe(observer, registered: registered)
  }

  @inlinable
  func subscribe(_ observer: @escaping (Event) -> Void, registered: (() -> Void)?) -> any DisposableType {
    let delivery = ScheduledDelivery(scheduler: scheduler, observer: observer, registered: registered)
    guard seconds > 0 else {
      // No wait: every event goes through, as a plain delivery on the scheduler.
      delivery.connect(to: upstream, forwardRegistered: registered != nil)
      return delivery
    }
    let sink = DebounceSink(delivery: delivery, seconds: seconds)
    let observation: any DisposableType
    if registered == nil {
      observation = upstream.observe { sink.receive($0) }
    } else {
      observation = upstream.observe({ sink.receive($0) }, registered: { sink.registrationEnded() })
    }
    delivery.attach(observation)
    return sink
  }
}

/// One observation of ``Debounce``: the timer logic in front of a ``ScheduledDelivery``.
/// Returned as the observation's disposable.
/// - Note: thread-safe.
@usableFromInline
final class DebounceSink<Event: Sendable, S: Scheduler>: DisposableType {
  @usableFromInline let delivery: ScheduledDelivery<Event, S>
  @usableFromInline let seconds: Double
  @usableFromInline let state = LockedState(DebounceStateMachine<Event>())

  @inlinable
  init(delivery: ScheduledDelivery<Event, S>, seconds: Double) {
    self.delivery = delivery
    self.seconds = seconds
  }

  @inlinable
  var isDisposed: Bool { delivery.isDisposed }

  /// An upstream event (any thread): replaces the waiting one and restarts the timer.
  @inlinable
  func receive(_ event: Event) {
    // A due registration end is queued inside the lock, in decision order (see
    // ScheduledDelivery.enqueue); the rest is performed outside it, where the scheduler and the
    // delivery may run user code.
    let (action, handOver) = state.withLock { machine in
      let action = machine.eventReceived(event)
      return (action, action.registeredDue ? delivery.enqueueRegistrationEnd() : nil)
    }
    action.cancel?.dispose()
    if let handOver { delivery.perform(handOver, onScheduler: false) }
    guard let generation = action.generation else { return }
    // The timer holds this sink until it fires or is cancelled (by a newer event or dispose).
    let handle = delivery.scheduler.schedule(after: seconds) { [self] in self.timerFired(generation) }
    let cancel = state.withLock { $0.timerScheduled(handle, generation: generation) }
    cancel?.dispose()
  }

  @usableFromInline
  func registrationEnded() {
    let handOver = state.withLock { machine in
      machine.registrationEnded() ? delivery.enqueueRegistrationEnd() : nil
    }
    if let handOver { delivery.perform(handOver, onScheduler: false) }
  }

  /// Runs on the scheduler.
  @usableFromInline
  func timerFired(_ generation: UInt64) {
    // Queued inside the lock, in decision order: a timer preempted after deciding cannot be
    // overtaken by a newer event's timer.
    let handOver = state.withLock { machine in
      machine.timerFired(generation: generation).map { event, endsRegistration in
        delivery.enqueue(event, endsRegistration: endsRegistration)
      }
    }
    if let handOver { delivery.perform(handOver, onScheduler: true) }
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
