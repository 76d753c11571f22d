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
    let sink = WithLatestFromSink<Upstream.Event, Other.Event>(observer: observer)
    // Both sources feed what this delivers: both carry the pressure of a stage downstream.
    sink.disposables.add(
      other.observe(
        with: EventObserver({ sink.otherReceived($0) }, finished: nil, registered: nil, pressure: observer.pressure)
      )
    )
    sink.disposables.add(
      upstream.observe(
        with: EventObserver(
          { sink.receive($0) },
          // Always observed: the other is let go at the end even when nobody asked for it.
          finished: { sink.upstreamEnded() },
          registered: observer.registered,
          pressure: observer.pressure
        )
      )
    )
    return sink.disposables
  }
}

/// One observation of ``WithLatestFrom``. Its state is the other's latest event, written from the
/// other's thread under a lock and read (a copy, after the lock) by the upstream's deliveries, which
/// are never concurrent; they alone deliver, so they need no serializer. The upstream's end
/// disposes both observations, then calls `finished`.
@usableFromInline
final class WithLatestFromSink<Value, Latest> {
  @usableFromInline let event: ((Value, Latest)) -> Void
  @usableFromInline let finished: (() -> Void)?
  /// The other's latest event; `nil` until it sends.
  @usableFromInline let latest = LockedState<Latest?>(nil)
  /// The observation's disposable: the other's observation, then the upstream's.
  @usableFromInline let disposables = CompositeDisposable()

  @inlinable
  init(observer: EventObserver<(Value, Latest)>) {
    event = observer.event
    finished = observer.finished
  }

  /// An event of the other: the new latest.
  @inlinable
  func otherReceived(_ value: Latest) {
    latest.withLock { $0 = value }
  }

  /// An upstream event: paired with the latest, if the other has sent.
  @inlinable
  func receive(_ value: Value) {
    guard let last = latest.withLock({ $0 }) else { return }
    event((value, last))  // after the lock
  }

  @inlinable
  func upstreamEnded() {
    disposables.dispose()
    finished?()
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
