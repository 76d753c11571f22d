/// How ``EventProducerType/flatMap(_:_:)`` flattens the inner producers: ``latest``, ``merge``,
/// ``concat``, or ``merge(maxConcurrent:)``.
///
/// ```swift
/// downloads.flatMap(.merge(maxConcurrent: 4)) { url in fetch(url) }.observe { chunk in write(chunk) }
/// ```
///
/// A struct rather than an enum so that the bounded merge has one spelling,
/// ``merge(maxConcurrent:)``, which checks its bound where it is written.
public struct FlatMapStrategy: Sendable, Hashable {
  /// What ``EventProducerType/flatMap(_:_:)`` does for each strategy.
  @usableFromInline
  enum Kind: Sendable, Hashable {
    case latest
    case merge
    case concat
    case mergeLimited(maxConcurrent: Int)
  }

  @usableFromInline let kind: Kind

  @inlinable
  init(_ kind: Kind) {
    self.kind = kind
  }

  /// Forward only the latest inner producer's events (``EventProducerType/switchToLatest()``).
  @inlinable
  public static var latest: FlatMapStrategy { FlatMapStrategy(.latest) }

  /// Forward every inner producer's events (``EventProducerType/merge()``).
  @inlinable
  public static var merge: FlatMapStrategy { FlatMapStrategy(.merge) }

  /// Forward the inner producers one after another (``EventProducerType/concat()``).
  @inlinable
  public static var concat: FlatMapStrategy { FlatMapStrategy(.concat) }

  /// Forward the events of at most `maxConcurrent` inner producers at once; the others wait their
  /// turn, in order (``EventProducerType/merge(maxConcurrent:)``).
  /// - Precondition: `maxConcurrent` is at least 1.
  public static func merge(maxConcurrent: Int) -> FlatMapStrategy {
    precondition(
      maxConcurrent >= 1,
      "FlatMapStrategy.merge(maxConcurrent:): maxConcurrent must be at least 1, got \(maxConcurrent)"
    )
    return FlatMapStrategy(.mergeLimited(maxConcurrent: maxConcurrent))
  }
}

/// The result of ``EventProducerType/flatMap(_:_:)``: each event transformed into a producer,
/// flattened by `strategy`.
///
/// Equivalent to `map(transform)` then `.switchToLatest()` (``FlatMapStrategy/latest``) or
/// `.merge()` (``FlatMapStrategy/merge``), with the transform composed into the observation
/// (no intermediate stage).
/// - Note: thread-safe; `transform` runs on the thread that delivers the upstream's event, never
///   concurrently for one observation.
public struct FlatMap<Upstream: EventProducerType, Inner: EventProducerType>: EventProducerType {
  public typealias Event = Inner.Event

  @usableFromInline let upstream: Upstream
  @usableFromInline let strategy: FlatMapStrategy
  @usableFromInline let transform: (Upstream.Event) -> Inner

  @inlinable
  init(upstream: Upstream, strategy: FlatMapStrategy, transform: @escaping (Upstream.Event) -> Inner) {
    self.upstream = upstream
    self.strategy = strategy
    self.transform = transform
  }

  /// The upstream's replay length: each inner it replays is counted as one event.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream and the inner producers made of its events; `registered` is called
  /// once the upstream has finished registering; the end follows the strategy (``Merge``'s or
  /// ``SwitchToLatest``'s end).
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    switch strategy.kind {
    case .latest:
      SwitchToLatestSink.observe(outer: upstream, transform: transform, observer: observer)
    case .merge:
      MergeSink.observe(outer: upstream, transform: transform, observer: observer)
    case .concat:
      MergeSink.observe(outer: upstream, transform: transform, maxConcurrent: 1, observer: observer)
    case .mergeLimited(let maxConcurrent):
      MergeSink.observe(outer: upstream, transform: transform, maxConcurrent: maxConcurrent, observer: observer)
    }
  }
}

extension EventProducerType {
  /// Transforms each event into a producer and forwards the events of those producers:
  /// only the latest one's (`.latest`) or all of them (`.merge`).
  ///
  /// ```swift
  /// userID.flatMap(.latest) { id in api.profile(id) }.observe { print($0) }
  /// ```
  /// - Parameters:
  ///   - strategy: ``FlatMapStrategy/latest`` (like `switchToLatest`) or ``FlatMapStrategy/merge``.
  ///   - transform: called once per event per observer, on the delivering thread.
  /// - Returns: a lazy producer of the inner producers' events. See ``FlatMap``.
  @inlinable
  public func flatMap<Inner: EventProducerType>(
    _ strategy: FlatMapStrategy,
    _ transform: @escaping (Event) -> Inner
  ) -> FlatMap<Self, Inner> {
    FlatMap(upstream: self, strategy: strategy, transform: transform)
  }
}
