/// How ``EventProducerType/throttle(seconds:queue:mode:)`` picks the events of a window.
public enum ThrottleMode: Sendable, Hashable {
  /// Bond v4 (the default): an event opens a window; at its end the latest event of the window is
  /// delivered. The first event is delayed by up to a window.
  case latest
  /// The event that opens a window is delivered at once; the others of the window are dropped.
  case leading
  /// RxSwift's `throttle(latest: true)`: the event that opens a window is delivered at once; at the
  /// window's end the latest other event of the window, if any, is delivered and opens the next
  /// window.
  case leadingAndLatest
}

extension EventProducerType where Event: Sendable {
  /// Delivers at most one event per window of `seconds`, on `queue` (Bond v4 semantics).
  ///
  /// An event opens a window of `seconds`; at its end the latest event of the window is delivered
  /// on `queue`; the next event after that opens the next window. With `seconds` 0 every event
  /// is delivered, in order, on `queue`. See ``throttle(seconds:queue:mode:)`` for the other modes.
  ///
  /// ```swift
  /// searchField.text.throttle(seconds: 0.3, queue: .main).observe { query in search(query) }
  /// ```
  ///
  /// | time (s)   | 0 | 0.5 | 1 | 1.1 | 2.1 |
  /// |------------|---|-----|---|-----|-----|
  /// | upstream   | 1 | 2   |   | 3   |     |
  /// | delivered  |   |     | 2 |     | 3   |
  ///
  /// Disposing drops the pending event (released at once) and cancels the window's end.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @inlinable
  public func throttle<S: Scheduler>(seconds: Double, queue: S) -> Throttle<Self, S> {
    precondition(seconds >= 0, "throttle(seconds:queue:): seconds must be 0 or more, got \(seconds)")
    return Throttle(upstream: self, seconds: seconds, scheduler: queue, mode: .latest)
  }

  /// Delivers at most one event per window of `seconds` (two for `.leadingAndLatest`), on `queue`,
  /// choosing the events by `mode`.
  ///
  /// Events at 0, 0.5, 1.5 (values 1, 2, 3), `seconds` 1:
  ///
  /// | mode                | delivered (time: value) |
  /// |---------------------|-------------------------|
  /// | `.latest`           | 1: 2, 2.5: 3            |
  /// | `.leading`          | 0: 1, 1.5: 3            |
  /// | `.leadingAndLatest` | 0: 1, 1: 2, 2: 3        |
  ///
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @inlinable
  public func throttle<S: Scheduler>(seconds: Double, queue: S, mode: ThrottleMode) -> Throttle<Self, S> {
    precondition(seconds >= 0, "throttle(seconds:queue:mode:): seconds must be 0 or more, got \(seconds)")
    return Throttle(upstream: self, seconds: seconds, scheduler: queue, mode: mode)
  }
}

/// The producer that ``EventProducerType/throttle(seconds:queue:mode:)`` returns. A light value;
/// each observation has its own windows.
/// - Note: thread-safe to observe from any thread; the upstream may send from several threads;
///   observers are called on the scheduler, one event at a time, in order.
public struct Throttle<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = Upstream.Event

  @usableFromInline let upstream: Upstream
  @usableFromInline let seconds: Double
  @usableFromInline let scheduler: S
  @usableFromInline let mode: ThrottleMode

  @inlinable
  init(upstream: Upstream, seconds: Double, scheduler: S, mode: ThrottleMode) {
    self.upstream = upstream
    self.seconds = seconds
    self.scheduler = scheduler
    self.mode = mode
  }

  /// The most events the registration can deliver: the upstream's replay, thinned by the windows.
  @inlinable
  public var replayLength: Int {
    if seconds == 0 { return upstream.replayLength }
    return Swift.min(upstream.replayLength, mode == .leadingAndLatest ? 2 : 1)
  }

  /// Registers `observer`, called on the scheduler with the throttled events.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void) -> any DisposableType {
    subscribe(observer, registered: nil)
  }

  /// Registers `observer`; `registered` is called on the scheduler right after the events that
  /// come from the registration (the upstream's replay), see `ThrottleStateMachine`.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void, registered: @escaping () -> Void) -> any DisposableType {
    subscribe(observer, registered: registered)
  }

  @inlinable
  func subscribe(_ observer: @escaping (Event) -> Void, registered: (() -> Void)?) -> any DisposableType {
    let delivery = ScheduledDelivery(scheduler: scheduler, observer: observer, registered: registered)
    guard seconds > 0 else {
      // A window of 0 lets every event through: a plain delivery on the scheduler.
      delivery.connect(to: upstream, forwardRegistered: registered != nil)
      return delivery
    }
    let sink = ThrottleSink(delivery: delivery, seconds: seconds, mode: mode)
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

/// One observation of ``Throttle``: the window logic in front of a ``ScheduledDelivery``.
/// Returned as the observation's disposable.
/// - Note: thread-safe.
@usableFromInline
final class ThrottleSink<Event: Sendable, S: Scheduler>: DisposableType {
  @usableFromInline let delivery: ScheduledDelivery<Event, S>
  @usableFromInline let seconds: Double
  @usableFromInline let state: LockedState<ThrottleStateMachine<Event>>

  @inlinable
  init(delivery: ScheduledDelivery<Event, S>, seconds: Double, mode: ThrottleMode) {
    self.delivery = delivery
    self.seconds = seconds
    self.state = LockedState(ThrottleStateMachine(mode: mode))
  }

  @inlinable
  var isDisposed: Bool { delivery.isDisposed }

  /// An upstream event (any thread). Inside a window this is one lock and a store.
  @inlinable
  func receive(_ event: Event) {
    // The hand-over to the delivery is queued inside this lock (in decision order: see
    // ScheduledDelivery.enqueue); everything else is performed outside it, where the scheduler
    // and the delivery may run user code.
    let (action, handOver) = state.withLock {
      machine -> (ThrottleStateMachine<Event>.ReceiveAction, ScheduledDelivery<Event, S>.Machine.ReceiveAction?) in
      let action = machine.eventReceived(event)
      switch action {
      case .deliverAndOpenWindow(let event, _): return (action, delivery.enqueue(event))
      case .registeredDue: return (action, delivery.enqueueRegistrationEnd())
      case .none, .openWindow: return (action, nil)
      }
    }
    if let handOver { delivery.perform(handOver, onScheduler: false) }
    switch action {
    case .none(let released), .registeredDue(let released):
      _ = released
    case .openWindow(let generation), .deliverAndOpenWindow(_, let generation):
      scheduleWindowEnd(generation)
    }
  }

  @usableFromInline
  func registrationEnded() {
    let handOver = state.withLock { machine in
      machine.registrationEnded() ? delivery.enqueueRegistrationEnd() : nil
    }
    if let handOver { delivery.perform(handOver, onScheduler: false) }
  }

  @usableFromInline
  func scheduleWindowEnd(_ generation: UInt64) {
    // The action holds this sink until it runs or is cancelled (by dispose).
    let handle = delivery.scheduler.schedule(after: seconds) { [self] in self.windowEnded(generation) }
    let cancel = state.withLock { $0.windowEndScheduled(handle, generation: generation) }
    cancel?.dispose()
  }

  /// Runs on the scheduler.
  @usableFromInline
  func windowEnded(_ generation: UInt64) {
    // Queued inside the lock, in decision order (see `receive`).
    let (action, handOver) = state.withLock {
      machine -> (ThrottleStateMachine<Event>.EndAction, ScheduledDelivery<Event, S>.Machine.ReceiveAction?) in
      let action = machine.windowEnded(generation: generation)
      switch action {
      case .none: return (action, nil)
      case .deliver(let event, let endsRegistration), .deliverAndOpenWindow(let event, let endsRegistration, _):
        return (action, delivery.enqueue(event, endsRegistration: endsRegistration))
      }
    }
    if case .deliverAndOpenWindow(_, _, let next) = action { scheduleWindowEnd(next) }
    if let handOver { delivery.perform(handOver, onScheduler: true) }
  }

  @usableFromInline
  func dispose() {
    // The delivery first: from now on no new delivery starts; it also ends the upstream observation.
    delivery.dispose()
    let (windowEnd, latest) = state.withLock { $0.disposed() }
    windowEnd?.dispose()
    _ = latest  // released here, outside the lock
  }
}
