/// The result of ``EventProducerType/collect(count:)`` and ``EventProducerType/collect()``: arrays
/// of consecutive events of `Upstream`.
///
/// Each observer has its own array. With a `count`, an array is delivered each time it holds
/// `count` events; at the end, the partial array (if not empty), then the end. Without a `count`,
/// one array of every event at the end (`[]` when there were none), then the end.
/// - Note: thread-safe as far as `Upstream` is.
public struct Collect<Upstream: EventProducerType>: EventProducerType {
  public typealias Event = [Upstream.Event]

  /// The producer whose events are collected.
  @usableFromInline let upstream: Upstream
  /// The size of a full array; `nil`: one array at the end.
  @usableFromInline let count: Int?

  @inlinable
  init(upstream: Upstream, count: Int?) {
    self.upstream = upstream
    self.count = count
  }

  /// The full arrays of the upstream's replay (none without a `count`).
  @inlinable
  public var replayLength: Int {
    guard let count else { return 0 }
    return upstream.replayLength / count
  }

  /// Observes the upstream once for `observer`: the arrays as described above; `registered` passes
  /// through; the end is always observed upstream (it delivers the last array), and passed on
  /// after that array.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let count = self.count
    let capacity = count ?? 0
    // Per-observer state. Delivery to one observer is never concurrent (guarantee 1), so a plain
    // captured var is safe here. One allocation per array: the capacity is reserved when an array
    // starts.
    var buffer: [Upstream.Event] = []
    let finished = observer.finished
    return upstream.observe(
      with: EventObserver(
        { event in
          if buffer.isEmpty { buffer.reserveCapacity(capacity) }
          buffer.append(event)
          if let count, buffer.count == count {
            let full = buffer
            buffer = []
            observer.event(full)
          }
        },
        finished: {
          let last = buffer
          buffer = []
          if count == nil || !last.isEmpty { observer.event(last) }
          finished?()
        },
        registered: observer.registered
      )
    )
  }
}

extension EventProducerType {
  /// Delivers arrays of `count` consecutive events; at the end, the last partial array (never an
  /// empty one), then the end.
  ///
  /// ```swift
  /// rows.collect(count: 100).observe { batch in database.insert(batch) }
  /// ```
  ///
  /// | upstream  | 1 | 2 | 3         | 4 | end        |
  /// |-----------|---|---|-----------|---|------------|
  /// | delivered |   |   | [1, 2, 3] |   | [4], end   |
  ///
  /// One array is allocated per batch, not per event.
  /// - Precondition: `count` is at least 1.
  @inlinable
  public func collect(count: Int) -> Collect<Self> {
    precondition(count >= 1, "collect(count:): count must be at least 1, got \(count)")
    return Collect(upstream: self, count: count)
  }

  /// Delivers one array of every event when the stream ends (`[]` if it ended without events),
  /// then the end. A stream that never ends delivers nothing.
  ///
  /// ```swift
  /// download.chunks.collect().observe { chunks in save(chunks) }
  /// ```
  @inlinable
  public func collect() -> Collect<Self> {
    Collect(upstream: self, count: nil)
  }
}
