extension EventProducerType where Event: Sendable {
  /// Delivers every event on `queue`: in order, none lost, never two at once (also on a concurrent
  /// queue), the replayed events too.
  ///
  /// ```swift
  /// model.results.deliverOn(.main).observe { results in table.reload(results) }
  /// ```
  ///
  /// Events are buffered and one scheduled drain delivers them, so a burst of events costs a few
  /// `schedule` calls, not one per event. The replay is delivered on `queue` too (so it arrives
  /// after `observe` returns), and `registered` (see ``EventProducerType/observe(_:registered:)``)
  /// is called on `queue` right after it. After `dispose()` returns no new delivery starts (one
  /// already running on the queue's thread runs to its end), and the waiting events and the
  /// observer are released at once.
  ///
  /// When the upstream ends, the end is delivered on `queue` after every buffered event; the
  /// observation is then over (`isDisposed`).
  ///
  /// The buffer is unbounded: a consumer slower than its producer makes it grow. To bound it, see
  /// ``deliverOn(_:bufferLimit:whenFull:statistics:)``.
  ///
  /// On a ``DedicatedThreadScheduler`` the buffer is a ring that the scheduler's thread polls: no
  /// lock and no scheduled action per event, the lowest latency Bond has (see <doc:SchedulingGuide>).
  @inlinable
  public func deliverOn<S: Scheduler>(_ queue: S) -> DeliverOn<Self, S> {
    DeliverOn(upstream: self, scheduler: queue, bufferLimit: .max, overflowPolicy: .dropOldest, statistics: nil)
  }

  /// Delivers events on `queue` like ``deliverOn(_:)``, keeping at most `bufferLimit` of them
  /// waiting. When the buffer is full, `policy` decides: `.backpressure` (the default) drops
  /// nothing and puts the producers that feed the stage under pressure until it has delivered down
  /// to `bufferLimit / 2`; `.dropOldest` and `.dropNewest` drop, and are asked for by name (a
  /// bounded stage is lossless unless told otherwise). `statistics` (if given) counts the drops,
  /// the waiting events and the pressure.
  ///
  /// ```swift
  /// results.deliverOn(.main, bufferLimit: 1_024).observe { table.append($0) }  // lossless
  ///
  /// let drops = DeliveryStatistics()
  /// sensor.readings
  ///   .deliverOn(.main, bufferLimit: 100, whenFull: .dropOldest, statistics: drops)
  ///   .observe { reading in chart.add(reading) }
  /// // later: drops.droppedCount
  /// ```
  ///
  /// An event counts as waiting until the drain hands it to the observer. The `registered`
  /// callback and the end are never dropped, and take no place in the buffer.
  /// - Precondition: `bufferLimit` is at least 1.
  @inlinable
  public func deliverOn<S: Scheduler>(
    _ queue: S,
    bufferLimit: Int,
    whenFull policy: DeliveryOverflowPolicy = .backpressure,
    statistics: DeliveryStatistics? = nil
  ) -> DeliverOn<Self, S> {
    precondition(
      bufferLimit >= 1,
      "deliverOn(_:bufferLimit:whenFull:statistics:): bufferLimit must be at least 1, got \(bufferLimit)"
    )
    return DeliverOn(
      upstream: self,
      scheduler: queue,
      bufferLimit: bufferLimit,
      overflowPolicy: policy,
      statistics: statistics
    )
  }
}

/// Which event a bounded ``EventProducerType/deliverOn(_:bufferLimit:whenFull:statistics:)`` drops
/// when its buffer is full.
public enum DeliveryOverflowPolicy: Sendable, Hashable {
  /// Drop the oldest waiting event to make room for the new one (the observer sees the freshest
  /// events: right for state such as readings or positions).
  case dropOldest
  /// Drop the new event (the observer sees the earliest events: right when the first ones matter).
  case dropNewest
  /// Never drop: a buffer holding `bufferLimit` events puts the producers that feed the stage under
  /// pressure (they are not writable) until it has delivered down to `bufferLimit / 2`. Async
  /// senders (``EventProducer/send(_:)``, ``EventProducer/send(contentsOf:)-(Sequence)``) wait meanwhile;
  /// `next` never waits, so the buffer can exceed its limit by what synchronous senders send under
  /// pressure. See <doc:FlowControlGuide>.
  case backpressure
}

/// The producer that ``EventProducerType/deliverOn(_:)`` returns: the upstream's events, delivered
/// on a scheduler. A light value; each observation has its own buffer and drain.
/// - Note: thread-safe to observe from any thread; observers are called on the scheduler, one
///   event at a time.
public struct DeliverOn<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = Upstream.Event

  @usableFromInline let upstream: Upstream
  @usableFromInline let scheduler: S
  @usableFromInline let bufferLimit: Int
  @usableFromInline let overflowPolicy: DeliveryOverflowPolicy
  @usableFromInline let statistics: DeliveryStatistics?

  @inlinable
  init(
    upstream: Upstream,
    scheduler: S,
    bufferLimit: Int,
    overflowPolicy: DeliveryOverflowPolicy,
    statistics: DeliveryStatistics?
  ) {
    self.upstream = upstream
    self.scheduler = scheduler
    self.bufferLimit = bufferLimit
    self.overflowPolicy = overflowPolicy
    self.statistics = statistics
  }

  /// The upstream's: its replay is delivered too (on the scheduler).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Registers `observer`, called on the scheduler with every event, the replay first;
  /// `registered` on the scheduler right after the replay; `finished` on the scheduler after every
  /// buffered event when the upstream ends (a buffer limit never drops the end).
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    // On a dedicated thread, unbounded, uncounted, with no flow control downstream: the thread
    // polls the stage's ring (no lock, no job per event).
    if bufferLimit == .max, overflowPolicy != .backpressure, statistics == nil, observer.pressure == nil,
      let dedicated = scheduler as? DedicatedThreadScheduler
    {
      let delivery = PolledDelivery(scheduler: dedicated, observer: observer)
      delivery.connect(to: upstream, forwardRegistered: observer.registered != nil)
      return StageHandle(delivery)  // the thread and the upstream keep the stage
    }
    let delivery = ScheduledDelivery(
      scheduler: scheduler,
      observer: observer,
      bufferLimit: bufferLimit,
      overflowPolicy: overflowPolicy,
      statistics: statistics,
      upstreamGate: overflowPolicy == .backpressure ? FlowGate() : nil,
      downstreamGate: observer.pressure
    )
    delivery.connect(to: upstream, forwardRegistered: observer.registered != nil)
    return delivery
  }
}
