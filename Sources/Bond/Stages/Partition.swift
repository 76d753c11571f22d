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
  /// events; ``Partition/dispose()`` stops observing it and ends every lane. The lane buffers are
  /// unbounded, like ``deliverOn(_:)``'s: a lane slower than the upstream makes its buffer grow (to
  /// bound them, see ``partition(lanes:bufferLimit:whenFull:statistics:by:)``).
  /// - Precondition: `lanes` is at least 1.
  @inlinable
  public func partition<Key: Hashable>(lanes: Int, by key: @escaping @Sendable (Event) -> Key) -> Partition<Event> {
    precondition(lanes >= 1, "partition(lanes:by:): lanes must be at least 1, got \(lanes)")
    return Partition(
      upstream: self,
      laneCount: lanes,
      bufferLimit: .max,
      policy: .dropOldest,
      statistics: nil,
      key: key
    )
  }

  /// ``partition(lanes:by:)`` with bounded lane buffers: each lane keeps at most `bufferLimit`
  /// events waiting for its queue; when a lane's buffer is full, `policy` says which event of that
  /// lane is dropped (the other lanes go on), and `statistics` (if given) counts the drops of all
  /// the lanes. The end is never dropped. The same buffers as
  /// ``deliverOn(_:bufferLimit:whenFull:statistics:)``'s, one per lane.
  ///
  /// ```swift
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
    whenFull policy: DeliveryOverflowPolicy,
    statistics: DeliveryStatistics? = nil,
    by key: @escaping @Sendable (Event) -> Key
  ) -> Partition<Event> {
    let call = "partition(lanes:bufferLimit:whenFull:statistics:by:)"
    precondition(lanes >= 1, "\(call): lanes must be at least 1, got \(lanes)")
    precondition(bufferLimit >= 1, "\(call): bufferLimit must be at least 1, got \(bufferLimit)")
    return Partition(
      upstream: self,
      laneCount: lanes,
      bufferLimit: bufferLimit,
      policy: policy,
      statistics: statistics,
      key: key
    )
  }
}

/// The keyed parallel lanes that ``EventProducerType/partition(lanes:by:)`` returns; disposed when
/// deallocated.
/// - Note: thread-safe.
public final class Partition<Event: Sendable>: DisposableType, Sendable {
  /// The lanes, each a hot producer delivering on its own serial queue.
  public let lanes: [EventProducer<Event>]
  /// One ``EventProducerType/deliverOn(_:)`` delivery per lane: the router pushes into its buffer, its drain runs on
  /// the lane's queue and sends into the lane.
  @usableFromInline
  let deliveries: [ScheduledDelivery<Event, DispatchQueue>]
  @usableFromInline
  let upstream: LockedState<(any DisposableType)?>
  @usableFromInline
  let disposedFlag: Atomic<Bool>

  // Inlinable so that the router (hash, pick the lane, push into its buffer) specializes for the
  // event and key types in the user's module.
  @inlinable
  init<Upstream: EventProducerType, Key: Hashable>(
    upstream: Upstream,
    laneCount: Int,
    bufferLimit: Int,
    policy: DeliveryOverflowPolicy,
    statistics: DeliveryStatistics?,
    key: @escaping @Sendable (Event) -> Key
  ) where Upstream.Event == Event {
    let lanes = (0..<laneCount).map { _ in EventProducer<Event>() }
    // Flow control: one gate for the upstream, raised by each lane under pressure (so the upstream
    // is not writable while any lane is); each lane's drain pauses while its producer is not
    // writable (a `.backpressure` stage downstream of the lane is under pressure).
    let upstreamGate = policy == .backpressure ? FlowGate() : nil
    let deliveries = lanes.enumerated().map { index, lane in
      ScheduledDelivery(
        scheduler: DispatchQueue(label: "Bond.partition.lane\(index)"),
        observer: EventObserver({ lane.next($0) }, finished: { lane.finish() }),
        bufferLimit: bufferLimit,
        overflowPolicy: policy,
        statistics: statistics,
        upstreamGate: upstreamGate,
        downstreamGate: lane.gate
      )
    }
    self.lanes = lanes
    self.deliveries = deliveries
    self.upstream = LockedState(nil)
    self.disposedFlag = Atomic(false)
    let count = UInt(laneCount)
    // The router: one hash and one push into the lane's buffer per event (a drain is scheduled
    // only when the lane was idle).
    let observation = upstream.observe(
      with: EventObserver(
        { event in
          deliveries[Int(UInt(bitPattern: key(event).hashValue) % count)].send(event)
        },
        finished: {
          for delivery in deliveries { delivery.finish() }
        },
        registered: nil,
        pressure: upstreamGate
      )
    )
    self.upstream.withLock { $0 = observation }
  }

  deinit {
    dispose()
  }

  /// Whether ``dispose()`` was called (or the partition deallocated).
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
    for delivery in deliveries { delivery.finish() }
  }
}
