/// The result of ``EventProducerType/groupBy(maxGroups:_:)``: one group `(key, events)` per new
/// key, whose `events` are those of `Upstream` with that key.
///
/// The group of a new key is delivered before the key's first event goes into it, so an observer
/// that observes `events` inside that delivery receives every event of its key. Each group is an
/// ``EventProducer`` (hot): observing it later receives what it sends from then on. With
/// `maxGroups` groups open, a new key first ends the group that has gone longest without an event
/// (a later event of its key opens a new group). Every group ends when the upstream ends (before
/// the outer end) or when the observation is disposed (then the outer observer gets no end, the
/// groups' observers do). `registered` and the pressure pass through.
/// - Note: thread-safe as far as `Upstream` is; the disposal may come from any thread.
public struct GroupBy<Upstream: EventProducerType, Key: Hashable>: EventProducerType {
  public typealias Event = (key: Key, events: AnyEventProducer<Upstream.Event>)

  /// The producer whose events are grouped.
  @usableFromInline let upstream: Upstream
  /// At most this many groups open at once.
  @usableFromInline let maxGroups: Int
  /// The key of an event.
  @usableFromInline let key: (Upstream.Event) -> Key

  @inlinable
  init(upstream: Upstream, maxGroups: Int, key: @escaping (Upstream.Event) -> Key) {
    self.upstream = upstream
    self.maxGroups = maxGroups
    self.key = key
  }

  /// The upstream's replay length: an upper bound of the groups a new observer receives at once.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream once for `observer`: the groups as described above.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let sink = GroupBySink(maxGroups: maxGroups, key: key, observer: observer)
    let disposable = CompositeDisposable()
    let observation = upstream.observe(
      with: EventObserver(
        { sink.receive($0) },
        finished: { [weak disposable] in
          sink.upstreamEnded()
          // The observation is over: it reports `isDisposed` and lets the sink (and so the outer
          // observer's closures) go. Weak: the upstream's observer must not keep the composite.
          disposable?.dispose()
        },
        registered: observer.registered,
        pressure: observer.pressure
      )
    )
    // An upstream that ended during `observe` disposed the composite already: `add` disposes at once.
    disposable.add(observation)
    disposable.add(sink.groupsEnder())  // after the upstream's observation: no end for the outer
    return disposable
  }
}

extension EventProducerType {
  /// Splits the events by `key`: one group `(key, events)` per new key, delivered before the
  /// key's first event goes into it, so observing `events` inside the delivery misses nothing.
  /// With `maxGroups` groups open, a new key first ends the group that has gone longest without an
  /// event. Every group ends when the upstream ends or the observation is disposed.
  /// See <doc:GroupByGuide>.
  ///
  /// ```swift
  /// orders.groupBy { $0.customer }.observe { group in
  ///   group.events.observe { print(group.key, $0) }
  /// }
  /// ```
  /// - Parameters:
  ///   - maxGroups: the most groups open at once; at least 1.
  ///   - key: the key of an event.
  /// - Returns: a lazy producer of groups. See ``GroupBy``.
  /// - Precondition: `maxGroups` is at least 1.
  @inlinable
  public func groupBy<Key: Hashable>(maxGroups: Int = .max, _ key: @escaping (Event) -> Key) -> GroupBy<Self, Key> {
    precondition(maxGroups >= 1, "groupBy(maxGroups:_:): maxGroups must be at least 1, got \(maxGroups)")
    return GroupBy(upstream: self, maxGroups: maxGroups, key: key)
  }
}
