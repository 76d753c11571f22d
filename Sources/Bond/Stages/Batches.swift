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
  /// unbounded, like ``deliverOn(_:)``'s; for a bounded one, see
  /// ``batches(on:maxCount:bufferLimit:whenFull:statistics:)``.
  /// - Precondition: `maxCount` is at least 1.
  public func batches<S: Scheduler>(on scheduler: S, maxCount: Int = 1024) -> Batches<Self, S> {
    precondition(maxCount >= 1, "batches(on:maxCount:): maxCount must be at least 1, got \(maxCount)")
    return Batches(
      upstream: self,
      scheduler: scheduler,
      maxCount: maxCount,
      bufferLimit: .max,
      policy: .dropOldest,
      statistics: nil
    )
  }

  /// ``batches(on:maxCount:)`` with a bounded buffer: at most `bufferLimit` events wait; when it is
  /// full, `policy` decides: `.backpressure` (the default) drops nothing and puts the producers
  /// that feed it under pressure until it has delivered down to `bufferLimit / 2` (see
  /// <doc:FlowControlGuide>); `.dropOldest` and `.dropNewest` drop, and are asked for by name.
  /// `statistics` counts the drops, the waiting events and the pressure.
  ///
  /// ```swift
  /// events.batches(on: queue, maxCount: 256, bufferLimit: 10_000)
  ///   .observe { batch in try? database.insert(batch) }
  /// ```
  ///
  /// The drain takes one array at a time (at most `maxCount` events), so the events still waiting
  /// stay in the buffer, where the policy applies to them.
  /// - Precondition: `maxCount` and `bufferLimit` are at least 1.
  public func batches<S: Scheduler>(
    on scheduler: S,
    maxCount: Int = 1024,
    bufferLimit: Int,
    whenFull policy: DeliveryOverflowPolicy = .backpressure,
    statistics: DeliveryStatistics? = nil
  ) -> Batches<Self, S> {
    let call = "batches(on:maxCount:bufferLimit:whenFull:statistics:)"
    precondition(maxCount >= 1, "\(call): maxCount must be at least 1, got \(maxCount)")
    precondition(bufferLimit >= 1, "\(call): bufferLimit must be at least 1, got \(bufferLimit)")
    return Batches(
      upstream: self,
      scheduler: scheduler,
      maxCount: maxCount,
      bufferLimit: bufferLimit,
      policy: policy,
      statistics: statistics
    )
  }
}

/// The producer that ``EventProducerType/batches(on:maxCount:)`` and
/// ``EventProducerType/batches(on:maxCount:bufferLimit:whenFull:statistics:)`` return.
/// - Note: thread-safe; observers are called on the scheduler, one array at a time.
public struct Batches<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = [Upstream.Event]

  @usableFromInline let upstream: Upstream
  @usableFromInline let scheduler: S
  @usableFromInline let maxCount: Int
  @usableFromInline let bufferLimit: Int
  @usableFromInline let policy: DeliveryOverflowPolicy
  @usableFromInline let statistics: DeliveryStatistics?

  @inlinable
  init(
    upstream: Upstream,
    scheduler: S,
    maxCount: Int,
    bufferLimit: Int,
    policy: DeliveryOverflowPolicy,
    statistics: DeliveryStatistics?
  ) {
    self.upstream = upstream
    self.scheduler = scheduler
    self.maxCount = maxCount
    self.bufferLimit = bufferLimit
    self.policy = policy
    self.statistics = statistics
  }

  /// 0: the upstream's replay arrives in the first array.
  public var replayLength: Int { 0 }

  /// Registers `observer`, called on the scheduler with each array; `registered` on the scheduler
  /// after the array that ends the upstream's replay; `finished` after the last array.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let delivery = ScheduledDelivery<Upstream.Event, S>(
      scheduler: scheduler,
      arrays: observer,
      maxCount: maxCount,
      bufferLimit: bufferLimit,
      overflowPolicy: policy,
      statistics: statistics,
      upstreamGate: policy == .backpressure ? FlowGate() : nil
    )
    delivery.connect(to: upstream, forwardRegistered: observer.registered != nil)
    return delivery
  }
}
