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
  /// after that array, unless the observer disposed meanwhile (from inside that last array's
  /// delivery, say): a disposed observation receives no end.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let observation = CollectSink<Upstream.Event>(observer, count: count)
    // Each closure captures only the observation: no context of its own to allocate.
    let upstreamDisposable = upstream.observe(
      with: EventObserver(
        { observation.receive($0) },
        finished: { observation.upstreamEnded() },
        registered: observer.registered,
        pressure: observer.pressure
      )
    )
    return CollectDisposable(userDisposed: observation.userDisposed, upstream: upstreamDisposable)
  }
}

/// The state of one observation of ``Collect``: the array being filled and the observer's
/// closures, in one object. Touched only inside the upstream's deliveries to it, which are never
/// concurrent (guarantee 1), so it needs no lock; ``userDisposed`` is thread-safe.
///
/// It holds nothing of the upstream's observation, and the ``CollectDisposable`` holds nothing of
/// it but the flag: the upstream's closures holding it make no cycle, and a disposable kept after
/// dispose() or the end keeps no user closure alive.
@usableFromInline
final class CollectSink<Element> {
  @usableFromInline let event: ([Element]) -> Void
  @usableFromInline let finished: (() -> Void)?
  /// The size of a full array; `nil`: one array at the end.
  @usableFromInline let count: Int?
  /// Debug builds: stops if two threads run this sink at once.
  @usableFromInline let serialAccess = SerialAccessCheck()
  /// The array being filled. One allocation per array: the capacity is reserved when it starts.
  /// Touched only by the upstream's deliveries, one at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var buffer: [Element] = []
  /// Disposed by the user's `dispose()` (``CollectDisposable``); read once, at the end, after the
  /// last array was delivered: never on the per-event path.
  @usableFromInline let userDisposed = SimpleDisposable()

  @inlinable
  init(_ observer: EventObserver<[Element]>, count: Int?) {
    event = observer.event
    finished = observer.finished
    self.count = count
  }

  /// An upstream event.
  @inlinable
  func receive(_ value: Element) {
    serialAccess.enter()
    if buffer.isEmpty { buffer.reserveCapacity(count ?? 0) }
    buffer.append(value)
    if let count, buffer.count == count {
      let full = buffer
      buffer = []
      serialAccess.leave()
      event(full)
      return
    }
    serialAccess.leave()
  }

  /// The upstream ended: the last array, then the end unless the observer disposed meanwhile.
  @inlinable
  func upstreamEnded() {
    serialAccess.enter()
    let last = buffer
    buffer = []
    serialAccess.leave()
    if count == nil || !last.isEmpty { event(last) }
    // A dispose() by the user from inside that delivery (or before it, from another thread) is
    // not an end: the upstream has already marked its own observation ended, so only this flag
    // tells (an acquiring load, paired with the releasing store of its dispose()).
    if userDisposed.isDisposed { return }
    finished?()
  }
}

/// The disposable of one ``Collect`` observation: it records the user's dispose for the
/// observation's end (``CollectSink/userDisposed``), then disposes the upstream's
/// observation. It reports `isDisposed` as the upstream's observation does (after the end too).
/// - Note: thread-safe.
@usableFromInline
final class CollectDisposable: DisposableType {
  /// The observation's flag, set before the upstream's observation is disposed.
  @usableFromInline let userDisposed: SimpleDisposable
  /// The upstream's observation.
  @usableFromInline let upstream: any DisposableType

  @inlinable
  init(userDisposed: SimpleDisposable, upstream: any DisposableType) {
    self.userDisposed = userDisposed
    self.upstream = upstream
  }

  @inlinable
  var isDisposed: Bool { upstream.isDisposed }

  @inlinable
  func dispose() {
    // The flag first: an end delivered after this dispose (on this thread, or on one that sees the
    // upstream's observation disposed) finds it set.
    userDisposed.dispose()
    upstream.dispose()
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
