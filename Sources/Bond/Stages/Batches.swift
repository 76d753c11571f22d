extension EventProducerType where Event: Sendable {
  /// Delivers on `scheduler` arrays of every event that arrived since the previous array: at most
  /// `maxCount` events each, in order, none lost; the end is delivered after the last array.
  ///
  /// ```swift
  /// events.batches(on: queue, maxCount: 256).observe { batch in socket.write(batch) }
  /// ```
  ///
  /// Built on ``deliverOn(_:)``'s delivery: senders push into its ring buffer under a short lock,
  /// and one scheduled drain takes the whole burst, so a burst costs one `schedule` and one array
  /// per `maxCount` events (each allocated once, at its size), nothing per event. The buffer is
  /// unbounded, like ``deliverOn(_:)``'s.
  /// - Precondition: `maxCount` is at least 1.
  public func batches<S: Scheduler>(on scheduler: S, maxCount: Int = 1024) -> Batches<Self, S> {
    precondition(maxCount >= 1, "batches(on:maxCount:): maxCount must be at least 1, got \(maxCount)")
    return Batches(upstream: self, scheduler: scheduler, maxCount: maxCount)
  }
}

/// The producer that ``EventProducerType/batches(on:maxCount:)`` returns.
/// - Note: thread-safe; observers are called on the scheduler, one array at a time.
public struct Batches<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = [Upstream.Event]

  @usableFromInline let upstream: Upstream
  @usableFromInline let scheduler: S
  @usableFromInline let maxCount: Int

  @inlinable
  init(upstream: Upstream, scheduler: S, maxCount: Int) {
    self.upstream = upstream
    self.scheduler = scheduler
    self.maxCount = maxCount
  }

  /// No replay of arrays (the upstream's replay arrives in the first arrays).
  public var replayLength: Int { 0 }

  /// Registers `observer`, called on the scheduler with each array; `registered` after the arrays
  /// of the upstream's replay; `finished` after the last array.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let delivery = ScheduledDelivery<Upstream.Event, S>(scheduler: scheduler, arrays: observer, maxCount: maxCount)
    delivery.connect(to: upstream, forwardRegistered: observer.registered != nil)
    return delivery
  }
}
