extension EventProducerType where Event: Sendable {
  /// Runs `transform` on each event, at most `maxConcurrent` at once, and delivers the results in
  /// the order of their events (a finished result waits for the ones before it).
  ///
  /// ```swift
  /// orders.map(maxConcurrent: 16) { order in await prices.lookUp(order) }.observe { priced in ... }
  /// ```
  ///
  /// An event starts its transform when fewer than `maxConcurrent` run; otherwise it waits in the
  /// stage's buffer. With `bufferLimit` events waiting the stage is under pressure (flow control,
  /// see <doc:FlowControlGuide>): it never drops, and its upstream is not writable until it has
  /// taken them down to `bufferLimit / 2`. Results are delivered one at a time on a worker task's
  /// thread (add `deliverOn` to choose a queue); the end after the last result. `dispose()`
  /// cancels the running transforms. The stage runs at most `maxConcurrent` worker tasks, not a
  /// task per event. See <doc:ConcurrentMapGuide>.
  ///
  /// `statistics` (if given) counts the stage's events waiting for a worker (`bufferedCount`), its
  /// results delivered (`deliveredCount`) and the times it came under pressure (`pressureCount`);
  /// it never drops, and takes no latency sample.
  /// - Precondition: `maxConcurrent` and `bufferLimit` are at least 1.
  @inlinable
  public func map<T: Sendable>(
    maxConcurrent: Int,
    bufferLimit: Int = 1024,
    statistics: DeliveryStatistics? = nil,
    _ transform: @escaping @Sendable (Event) async -> T
  ) -> ConcurrentMap<Self, T> {
    ConcurrentMap(
      self,
      call: "map(maxConcurrent:bufferLimit:_:)",
      maxConcurrent: maxConcurrent,
      bufferLimit: bufferLimit,
      statistics: statistics,
      ordered: true,
      transform: transform
    )
  }

  /// ``map(maxConcurrent:bufferLimit:statistics:_:)`` that delivers each result as soon as it is ready, in
  /// the order they complete.
  /// - Precondition: `maxConcurrent` and `bufferLimit` are at least 1.
  @inlinable
  public func mapUnordered<T: Sendable>(
    maxConcurrent: Int,
    bufferLimit: Int = 1024,
    statistics: DeliveryStatistics? = nil,
    _ transform: @escaping @Sendable (Event) async -> T
  ) -> ConcurrentMap<Self, T> {
    ConcurrentMap(
      self,
      call: "mapUnordered(maxConcurrent:bufferLimit:_:)",
      maxConcurrent: maxConcurrent,
      bufferLimit: bufferLimit,
      statistics: statistics,
      ordered: false,
      transform: transform
    )
  }

  /// ``map(maxConcurrent:bufferLimit:statistics:_:)`` with a transform that throws: its error becomes that
  /// event's result (`.failure`), in its place in the order; the stream goes on.
  ///
  /// ```swift
  /// urls.tryMap(maxConcurrent: 8) { url in try await http.get(url) }.observe { result in ... }
  /// ```
  /// - Precondition: `maxConcurrent` and `bufferLimit` are at least 1.
  @inlinable
  public func tryMap<T: Sendable>(
    maxConcurrent: Int,
    bufferLimit: Int = 1024,
    statistics: DeliveryStatistics? = nil,
    _ transform: @escaping @Sendable (Event) async throws -> T
  ) -> ConcurrentMap<Self, Result<T, any Error>> {
    ConcurrentMap(
      self,
      call: "tryMap(maxConcurrent:bufferLimit:_:)",
      maxConcurrent: maxConcurrent,
      bufferLimit: bufferLimit,
      statistics: statistics,
      ordered: true,
      transform: { event in
        do { return .success(try await transform(event)) } catch { return .failure(error) }
      }
    )
  }
}

/// The producer that ``EventProducerType/map(maxConcurrent:bufferLimit:statistics:_:)``,
/// ``EventProducerType/mapUnordered(maxConcurrent:bufferLimit:statistics:_:)`` and
/// ``EventProducerType/tryMap(maxConcurrent:bufferLimit:statistics:_:)`` return: a stage of asynchronous
/// work, at most `maxConcurrent` transforms at once. A light value; each observation has its own
/// buffer and workers.
/// - Note: thread-safe; observers are called on a worker task's thread, one result at a time.
public struct ConcurrentMap<Upstream: EventProducerType, Output: Sendable>: EventProducerType
where Upstream.Event: Sendable {
  public typealias Event = Output

  @usableFromInline let upstream: Upstream
  @usableFromInline let maxConcurrent: Int
  @usableFromInline let bufferLimit: Int
  @usableFromInline let ordered: Bool
  @usableFromInline let statistics: DeliveryStatistics?
  @usableFromInline let transform: @Sendable (Upstream.Event) async -> Output

  @inlinable
  init(
    _ upstream: Upstream,
    call: StaticString,
    maxConcurrent: Int,
    bufferLimit: Int,
    statistics: DeliveryStatistics?,
    ordered: Bool,
    transform: @escaping @Sendable (Upstream.Event) async -> Output
  ) {
    precondition(maxConcurrent >= 1, "\(call): maxConcurrent must be at least 1, got \(maxConcurrent)")
    precondition(bufferLimit >= 1, "\(call): bufferLimit must be at least 1, got \(bufferLimit)")
    self.upstream = upstream
    self.maxConcurrent = maxConcurrent
    self.bufferLimit = bufferLimit
    self.ordered = ordered
    self.statistics = statistics
    self.transform = transform
  }

  /// The upstream's: the results of its replayed events come first (asynchronously).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Registers `observer`: the results, one at a time on a worker's thread; `registered` after the
  /// results of the events the registration delivered; `finished` after the last result.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Output>) -> any DisposableType {
    let stage = ConcurrentMapStage(
      maxConcurrent: maxConcurrent,
      bufferLimit: bufferLimit,
      ordered: ordered,
      statistics: statistics,
      observer: observer,
      transform: transform
    )
    stage.connect(to: upstream)
    // The upstream's observation and the workers keep the stage; the user's disposable does not,
    // so the observer and the transform go once they let it go after a dispose() or the end.
    return StageHandle(stage)
  }
}
