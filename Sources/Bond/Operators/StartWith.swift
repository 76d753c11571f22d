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

  /// Delivers `event` to `observer`, then observes the upstream.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Upstream.Event) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Delivers `event` to `observer`, then observes the upstream forwarding `registered`, which
  /// therefore fires after the first event and the upstream's replay.
  @inlinable
  @discardableResult
  public func observe(
    _ observer: @escaping (Upstream.Event) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    observer(event)
    return upstream.observe(observer, registered: registered)
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
