/// The result of ``EventProducerType/withLatestFrom(_:)``: each event of the upstream paired with
/// the latest event of another producer.
///
/// ```swift
/// saveTaps.withLatestFrom(text).observe { _, text in save(text) }
/// ```
///
/// Events of the upstream before the other's first event are dropped. It ends with the upstream;
/// the other's end changes nothing (its last event stays the latest). The other is observed first,
/// so its replay is the latest when the upstream's replay arrives. No allocation per event.
/// - Note: thread-safe: the two may send from different threads.
public struct WithLatestFrom<Upstream: EventProducerType, Other: EventProducerType>: EventProducerType {
  /// The pair of an upstream event and the other's latest event.
  public typealias Event = (Upstream.Event, Other.Event)

  @usableFromInline let upstream: Upstream
  @usableFromInline let other: Other

  @inlinable
  init(upstream: Upstream, other: Other) {
    self.upstream = upstream
    self.other = other
  }

  /// The upstream's replay length (its replayed events pair with the other's latest).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the other, then the upstream; delivers each upstream event with the other's latest
  /// event; ends with the upstream.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let latest = LockedState<Other.Event?>(nil)
    let disposables = CompositeDisposable()
    // Both sources feed what this delivers: both carry the pressure of a stage downstream.
    disposables.add(
      other.observe(
        with: EventObserver(
          { value in latest.withLock { $0 = value } },
          finished: nil,
          registered: nil,
          pressure: observer.pressure
        )
      )
    )
    let event = observer.event
    let finished = observer.finished
    disposables.add(
      upstream.observe(
        with: EventObserver(
          { value in
            guard let last = latest.withLock({ $0 }) else { return }
            event((value, last))
          },
          finished: {
            // Always observed: the other is let go at the end even when nobody asked for it.
            disposables.dispose()
            finished?()
          },
          registered: observer.registered,
          pressure: observer.pressure
        )
      )
    )
    return disposables
  }
}

extension EventProducerType {
  /// Pairs each event of this producer with the latest event of `other`; events before other's
  /// first are dropped; ends with this producer.
  ///
  /// ```swift
  /// clicks.withLatestFrom(text).observe { click, text in print(click, text) }
  /// ```
  /// - Returns: a lazy producer of `(Event, Other.Event)`. See ``WithLatestFrom``.
  @inlinable
  public func withLatestFrom<Other: EventProducerType>(_ other: Other) -> WithLatestFrom<Self, Other> {
    WithLatestFrom(upstream: self, other: other)
  }
}
