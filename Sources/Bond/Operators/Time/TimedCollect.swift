extension EventProducerType where Event: Sendable {
  /// Delivers an array on `queue` when `count` events have arrived or `seconds` have passed since
  /// its first event, whichever comes first; never an empty array; at the end, the partial array,
  /// then the end (on `queue`).
  ///
  /// ```swift
  /// measurements.collect(count: 500, orEvery: 0.1, queue: writer).observe { batch in socket.send(batch) }
  /// ```
  ///
  /// | time (s)  | 0 | 0.6 | 1      | 5 | 5   | 5         |
  /// |-----------|---|-----|--------|---|-----|-----------|
  /// | upstream  | 1 | 2   |        | 3 | 4   | 5         |
  /// | delivered |   |     | [1, 2] |   |     | [3, 4, 5] |
  ///
  /// (`count` 3, `seconds` 1.) Senders may be on several threads: each decision is made under a
  /// lock and the arrays are delivered in decision order. Disposing drops the partial array.
  /// - Precondition: `count` is at least 1; `seconds` is 0 or more (not NaN).
  @inlinable
  public func collect<S: Scheduler>(count: Int, orEvery seconds: Double, queue: S) -> TimedCollect<Self, S> {
    precondition(count >= 1, "collect(count:orEvery:queue:): count must be at least 1, got \(count)")
    precondition(seconds >= 0, "collect(count:orEvery:queue:): seconds must be 0 or more, got \(seconds)")
    return TimedCollect(upstream: self, count: count, seconds: seconds, scheduler: queue)
  }

  /// ``collect(count:orEvery:queue:)-(_,Double,_)`` with a `Duration`.
  ///
  /// ```swift
  /// measurements.collect(count: 500, orEvery: .milliseconds(100), queue: writer).observe { send($0) }
  /// ```
  /// - Precondition: `count` is at least 1; `interval` is zero or more.
  @inlinable
  public func collect<S: Scheduler>(count: Int, orEvery interval: Duration, queue: S) -> TimedCollect<Self, S> {
    precondition(interval >= .zero, "collect(count:orEvery:queue:): interval must be 0 or more, got \(interval)")
    return collect(count: count, orEvery: interval.bondSeconds, queue: queue)
  }
}

/// The producer that ``EventProducerType/collect(count:orEvery:queue:)-(_,Double,_)`` returns.
/// A light value; each observation has its own array.
/// - Note: thread-safe to observe from any thread; the upstream may send from several threads;
///   observers are called on the scheduler, one array at a time, in decision order.
public struct TimedCollect<Upstream: EventProducerType, S: Scheduler>: EventProducerType
where Upstream.Event: Sendable {
  public typealias Event = [Upstream.Event]

  @usableFromInline let upstream: Upstream
  @usableFromInline let count: Int
  @usableFromInline let seconds: Double
  @usableFromInline let scheduler: S

  @inlinable
  init(upstream: Upstream, count: Int, seconds: Double, scheduler: S) {
    (self.upstream, self.count, self.seconds, self.scheduler) = (upstream, count, seconds, scheduler)
  }

  /// The full arrays of the upstream's replay.
  @inlinable
  public var replayLength: Int { upstream.replayLength / count }

  /// Registers `observer`, called on the scheduler with the arrays; `registered` after the arrays
  /// the registration completed; the end always observed upstream (it delivers the partial array).
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let delivery = ScheduledDelivery(scheduler: scheduler, observer: observer)
    let sink = TimedCollectSink(delivery: delivery, seconds: seconds, count: count)
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
}

/// One observation of ``TimedCollect``: decides under its lock, hands the arrays to the delivery in
/// the same critical section, performs the hand-over and the timers outside it.
@usableFromInline
final class TimedCollectSink<Element: Sendable, S: Scheduler>: DisposableType, Sendable {
  @usableFromInline typealias HandOver = ScheduledDelivery<[Element], S>.Machine.ReceiveAction

  @usableFromInline let delivery: ScheduledDelivery<[Element], S>
  @usableFromInline let seconds: Double
  @usableFromInline let state: LockedState<TimedCollectStateMachine<Element>>

  @inlinable
  init(delivery: ScheduledDelivery<[Element], S>, seconds: Double, count: Int) {
    self.delivery = delivery
    self.seconds = seconds
    self.state = LockedState(TimedCollectStateMachine(count: count))
  }

  @inlinable
  var isDisposed: Bool { delivery.isDisposed }

  @inlinable
  func receive(_ event: Element) {
    let (handOver, schedule, cancel) = state.withLock { machine -> (HandOver?, UInt64?, (any DisposableType)?) in
      let action = machine.receive(event)
      return (action.deliver.map { delivery.enqueue($0) }, action.schedule, action.cancel)
    }
    cancel?.dispose()
    if let handOver { delivery.perform(handOver, onScheduler: false) }
    if let schedule { scheduleTimer(schedule) }
  }

  @usableFromInline
  func scheduleTimer(_ generation: UInt64) {
    let handle = delivery.scheduler.schedule(after: seconds) { [self] in self.timerFired(generation) }
    let cancel = state.withLock { $0.timerScheduled(handle, generation: generation) }
    cancel?.dispose()
  }

  /// Runs on the scheduler.
  @usableFromInline
  func timerFired(_ generation: UInt64) {
    let handOver = state.withLock { machine in machine.fire(generation: generation).map { delivery.enqueue($0) } }
    if let handOver { delivery.perform(handOver, onScheduler: true) }
  }

  @usableFromInline
  func registrationEnded() {
    let handOver = state.withLock { _ in delivery.enqueueRegistrationEnd() }
    delivery.perform(handOver, onScheduler: false)
  }

  /// The partial array, then the end, in one critical section.
  @usableFromInline
  func upstreamEnded() {
    let (cancel, flush, end) = state.withLock { machine -> ((any DisposableType)?, HandOver?, HandOver) in
      let (pending, cancel) = machine.ended()
      return (cancel, pending.map { delivery.enqueue($0) }, delivery.enqueueEnd())
    }
    cancel?.dispose()
    if let flush { delivery.perform(flush, onScheduler: false) }
    delivery.perform(end, onScheduler: false)
  }

  @usableFromInline
  func dispose() {
    delivery.dispose()
    let (timer, pending) = state.withLock { $0.disposed() }
    timer?.dispose()
    _ = pending  // released here, outside the lock
  }
}
