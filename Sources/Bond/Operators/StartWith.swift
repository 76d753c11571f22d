/// The result of ``EventProducerType/startWith(_:)``: one event, then the events of `Upstream`.
///
/// Each observer receives `event` at registration, before the upstream's replay.
/// - Note: thread-safe as far as `Upstream` is. The first event is delivered on the thread that
///   calls `observe`, before the upstream is observed, so it never races with upstream events.
public struct StartWith<Upstream: EventProducerType>: EventProducerType {
  /// The producer whose events follow the first one.
  @usableFromInline let upstream: Upstream
  /// The event each observer receives first.
  @usableFromInline let event: Upstream.Event

  @inlinable
  init(upstream: Upstream, event: Upstream.Event) {
    self.upstream = upstream
    self.event = event
  }

  /// The upstream's replay length plus one (the first event).
  @inlinable
  public var replayLength: Int { upstream.replayLength + 1 }

  /// Observes the upstream once for `observer`: the events as described above; the end and
  /// `registered` pass through.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Upstream.Event>) -> any DisposableType {
    observer.event(event)
    return upstream.observe(with: observer)
  }
}

extension EventProducerType {
  /// Sends `event` to each observer first, then the upstream's events (replay included).
  ///
  /// ```swift
  /// taps.rewrite("tapped").startWith("idle").observe { print($0) }   // prints: idle
  /// ```
  /// - Parameter event: the first event of every observation.
  /// - Returns: a lazy producer whose `replayLength` is one more than the upstream's.
  @inlinable
  public func startWith(_ event: Event) -> StartWith<Self> {
    StartWith(upstream: self, event: event)
  }
}
