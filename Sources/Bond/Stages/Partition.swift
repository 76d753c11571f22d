import Dispatch
import Synchronization

extension EventProducerType where Event: Sendable {
  /// Spreads the events over `lanes` hot producers by key: each event goes to lane
  /// `hash(key) % lanes`, so equal keys keep their order, and each lane delivers on its own serial
  /// `DispatchQueue`, so the lanes run in parallel.
  ///
  /// ```swift
  /// let partition = trades.partition(lanes: 4) { $0.symbol }
  /// merge(partition.lanes.map { $0.map(score) }).observe { print($0) }
  /// ```
  ///
  /// The receiver is observed once, from creation. Its end ends every lane after the lane's buffered
  /// events; ``Partition/dispose()`` stops observing it and ends every lane. The partition lives
  /// while the caller holds it or any of its lanes is observed (see ``Partition``). The lane
  /// buffers are unbounded, like ``deliverOn(_:)``'s: a lane slower than the upstream makes its
  /// buffer grow (to bound them, see ``partition(lanes:bufferLimit:whenFull:statistics:by:)``; to
  /// choose the lanes' schedulers, ``partition(lanes:bufferLimit:whenFull:statistics:on:by:)``).
  /// - Precondition: `lanes` is at least 1.
  @inlinable
  public func partition<Key: Hashable>(lanes: Int, by key: @escaping @Sendable (Event) -> Key) -> Partition<Event> {
    precondition(lanes >= 1, "partition(lanes:by:): lanes must be at least 1, got \(lanes)")
    return Partition(
      upstream: self,
      schedulers: Partition<Event>.laneQueues(lanes),
      bufferLimit: .max,
      policy: .dropOldest,
      statistics: nil,
      key: key
    )
  }

  /// ``partition(lanes:by:)`` with bounded lane buffers: each lane keeps at most `bufferLimit`
  /// events waiting for its queue. When a lane's buffer is full, `policy` decides:
  /// `.backpressure` (the default) drops nothing and puts the upstream under pressure while any
  /// lane is full (see <doc:FlowControlGuide>); `.dropOldest` and `.dropNewest` drop an event of
  /// that lane (the other lanes go on), and are asked for by name. `statistics` (if given) counts
  /// the drops, the waiting events and the pressure of all the lanes. The end is never dropped. The
  /// same buffers as ``deliverOn(_:bufferLimit:whenFull:statistics:)``'s, one per lane.
  ///
  /// ```swift
  /// let partition = orders.partition(lanes: 4, bufferLimit: 1_024) { $0.customerID }  // lossless
  ///
  /// let drops = DeliveryStatistics()
  /// let partition = ticks.partition(lanes: 4, bufferLimit: 10_000, whenFull: .dropOldest, statistics: drops) {
  ///   $0.symbol
  /// }
  /// ```
  /// - Precondition: `lanes` and `bufferLimit` are at least 1.
  @inlinable
  public func partition<Key: Hashable>(
    lanes: Int,
    bufferLimit: Int,
    whenFull policy: DeliveryOverflowPolicy = .backpressure,
    statistics: DeliveryStatistics? = nil,
    by key: @escaping @Sendable (Event) -> Key
  ) -> Partition<Event> {
    let call = "partition(lanes:bufferLimit:whenFull:statistics:by:)"
    precondition(lanes >= 1, "\(call): lanes must be at least 1, got \(lanes)")
    precondition(bufferLimit >= 1, "\(call): bufferLimit must be at least 1, got \(bufferLimit)")
    return Partition(
      upstream: self,
      schedulers: Partition<Event>.laneQueues(lanes),
      bufferLimit: bufferLimit,
      policy: policy,
      statistics: statistics,
      key: key
    )
  }

  /// ``partition(lanes:bufferLimit:whenFull:statistics:by:)`` with the lanes on the schedulers
  /// given, one per lane: lane `i` delivers on `schedulers[i]`. A ``DedicatedThreadScheduler`` per
  /// lane gives each lane a thread of its own; a `DispatchQueue` per lane is what the forms without
  /// `on:` make.
  ///
  /// ```swift
  /// let threads = (0..<4).map { _ in DedicatedThreadScheduler() }
  /// let partition = trades.partition(lanes: 4, on: threads) { $0.symbol }
  /// for lane in partition.lanes { lane.observe { trade in book.apply(trade) } }
  /// ```
  ///
  /// Lossless by default: each lane keeps at most `bufferLimit` (1,024) events waiting, and a full
  /// lane puts the upstream under pressure (`.backpressure`); dropping is asked for by name. A lane
  /// delivers on its scheduler one event at a time (a serial scheduler keeps each key's order; a
  /// concurrent `DispatchQueue` too, as ``deliverOn(_:)`` never runs two deliveries at once).
  /// - Precondition: `lanes` and `bufferLimit` are at least 1, and `schedulers.count == lanes`.
  @inlinable
  public func partition<Key: Hashable, S: Scheduler>(
    lanes: Int,
    bufferLimit: Int = 1_024,
    whenFull policy: DeliveryOverflowPolicy = .backpressure,
    statistics: DeliveryStatistics? = nil,
    on schedulers: [S],
    by key: @escaping @Sendable (Event) -> Key
  ) -> Partition<Event> {
    let call = "partition(lanes:bufferLimit:whenFull:statistics:on:by:)"
    precondition(lanes >= 1, "\(call): lanes must be at least 1, got \(lanes)")
    precondition(bufferLimit >= 1, "\(call): bufferLimit must be at least 1, got \(bufferLimit)")
    precondition(
      schedulers.count == lanes,
      "\(call): one scheduler per lane: \(lanes) lanes, got \(schedulers.count) schedulers"
    )
    return Partition(
      upstream: self,
      schedulers: schedulers,
      bufferLimit: bufferLimit,
      policy: policy,
      statistics: statistics,
      key: key
    )
  }
}

/// The keyed parallel lanes that ``EventProducerType/partition(lanes:by:)`` returns.
///
/// A partition lives while the caller holds it or any of its lanes is observed: the user keeps
/// only the lanes' disposables (each observed lane holds the partition; the partition holds its
/// lanes). Once it is neither held nor observed it is released, and disposed: it stops observing
/// the upstream and ends every lane. A lane kept without its partition and observed later gets the
/// end at once.
/// - Note: thread-safe.
public final class Partition<Event: Sendable>: DisposableType, Sendable {
  /// The lanes, each a hot producer delivering on its own scheduler.
  public let lanes: [EventProducer<Event>]
  /// Ends every lane's delivery (after the events already handed to it): one
  /// ``EventProducerType/deliverOn(_:)`` delivery per lane, the router pushes into its buffer, its
  /// drain runs on the lane's scheduler and sends into the lane.
  @usableFromInline
  let endLanes: @Sendable () -> Void
  @usableFromInline
  let upstream: LockedState<(any DisposableType)?>
  @usableFromInline
  let disposedFlag: Atomic<Bool>

  /// One serial queue per lane: the lanes of the forms without `on:`.
  @inlinable
  static func laneQueues(_ count: Int) -> [DispatchQueue] {
    (0..<count).map { DispatchQueue(label: "Bond.partition.lane\($0)") }
  }

  // Inlinable so that the router (hash, pick the lane, push into its buffer) specializes for the
  // event and key types in the user's module.
  @inlinable
  init<Upstream: EventProducerType, Key: Hashable, S: Scheduler>(
    upstream: Upstream,
    schedulers: [S],
    bufferLimit: Int,
    policy: DeliveryOverflowPolicy,
    statistics: DeliveryStatistics?,
    key: @escaping @Sendable (Event) -> Key
  ) where Upstream.Event == Event {
    // Managed lanes: an observed lane keeps its owner (this partition, set below) alive.
    let lanes = schedulers.map { _ in EventProducer<Event>(replayLength: 0, managedBy: { _ in nil }) }
    // Flow control: one gate for the upstream, raised by each lane under pressure (so the upstream
    // is not writable while any lane is); each lane's drain pauses while its producer is not
    // writable (a `.backpressure` stage downstream of the lane is under pressure).
    let upstreamGate = policy == .backpressure ? FlowGate() : nil
    let deliveries = zip(lanes, schedulers).map { lane, scheduler in
      ScheduledDelivery(
        scheduler: scheduler,
        observer: EventObserver({ lane.next($0) }, finished: { lane.finish() }),
        bufferLimit: bufferLimit,
        overflowPolicy: policy,
        statistics: statistics,
        upstreamGate: upstreamGate,
        downstreamGate: lane.gate
      )
    }
    let endLanes: @Sendable () -> Void = { for delivery in deliveries { delivery.finish() } }
    self.lanes = lanes
    self.endLanes = endLanes
    self.upstream = LockedState(nil)
    self.disposedFlag = Atomic(false)
    // No lane is observed yet (nobody else has them): each holds this partition while observed.
    for lane in lanes { lane.withLifecycle { $0.owner = self } }
    let count = UInt(lanes.count)
    // The router: one hash and one push into the lane's buffer per event (a drain is scheduled
    // only when the lane was idle).
    let observation = upstream.observe(
      with: EventObserver(
        { event in
          deliveries[Int(UInt(bitPattern: key(event).hashValue) % count)].send(event)
        },
        finished: endLanes,
        registered: nil,
        pressure: upstreamGate
      )
    )
    self.upstream.withLock { $0 = observation }
  }

  deinit {
    dispose()
  }

  /// Whether ``dispose()`` was called (or the partition released).
  public var isDisposed: Bool { disposedFlag.load(ordering: .acquiring) }

  /// Stops observing the upstream and ends every lane (after the events already handed to it).
  public func dispose() {
    // acquiringAndReleasing: one winner disposes.
    guard !disposedFlag.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let observation = upstream.withLock { value -> (any DisposableType)? in
      defer { value = nil }
      return value
    }
    observation?.dispose()
    endLanes()
  }
}
