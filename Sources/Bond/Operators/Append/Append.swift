/// The result of ``EventProducerType/append(_:)``: the events of `Upstream` until its end, then
/// those `Other` sends from then on, and `Other`'s end.
///
/// `Other` is hot: it is observed once the upstream has ended, so what it sent before is lost,
/// except its replay (an ``Observable``'s value is delivered first). The observation keeps `Other`
/// alive until it observes it, like an upstream. `registered` is forwarded when the upstream has
/// finished registering.
///
/// How: both sources send into one private serializer (an `Inbox`, as `take(until:)` does), whose
/// single observer delivers, so the events stay in order and the end is delivered exactly once.
/// - Note: thread-safe: both producers may send from any thread.
public struct Append<Upstream: EventProducerType, Other: EventProducerType>: EventProducerType
where Other.Event == Upstream.Event {
  public typealias Event = Upstream.Event

  /// The producer observed first.
  @usableFromInline let upstream: Upstream
  /// The producer observed after the upstream's end.
  @usableFromInline let other: Other

  @inlinable
  init(upstream: Upstream, other: Other) {
    self.upstream = upstream
    self.other = other
  }

  /// The upstream's replay length: what a new observer can receive at once.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream for `observer`, then `other` once the upstream has ended: the events
  /// as described above; `registered` once the upstream has registered.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let upstream = self.upstream
    let other = self.other
    return Inbox<AppendInput<Event>>.observation(pressure: observer.pressure) { inbox in
      let sink = AppendSink(inbox: inbox, other: other, observer: observer)
      inbox.open { sink.receive($0) }
      let serializer = inbox.serializer
      inbox.disposables.add(
        upstream.observe(
          with: EventObserver(
            { serializer.next(.event($0)) },
            finished: inbox.sender(.firstEnded),
            registered: inbox.sender(observer.registered == nil ? nil : .registered),
            pressure: inbox.pressure
          )
        )
      )
    }
  }
}

extension EventProducerType {
  /// Delivers this producer's events, then, once it has ended, those `other` sends from then on;
  /// ends when `other` ends. `other` is hot: what it sent before is lost, except its replay.
  /// See <doc:AppendGuide>.
  ///
  /// ```swift
  /// cached.append(live).observe { show($0) } finished: { print("done") }
  /// ```
  /// - Parameter other: the producer observed after this one's end; same event type.
  /// - Returns: a lazy producer with this producer's replay length. See ``Append``.
  @inlinable
  public func append<Other: EventProducerType>(_ other: Other) -> Append<Self, Other>
  where Other.Event == Event {
    Append(upstream: self, other: other)
  }
}
