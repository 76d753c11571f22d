/// The result of ``EventProducerType/reduce(_:_:)``: the running accumulation of `Upstream`'s events.
///
/// Each observer starts from `initial` and receives the accumulation after each event it sees
/// (replayed ones included); `initial` itself is not delivered.
/// - Note: thread-safe as far as `Upstream` is.
public struct Reduce<Upstream: EventProducerType, Output>: EventProducerType {
  /// The producer whose events are accumulated.
  @usableFromInline let upstream: Upstream
  /// The accumulation each observer starts from.
  @usableFromInline let initial: Output
  /// Combines the accumulation so far with the next event.
  @usableFromInline let combine: (Output, Upstream.Event) -> Output

  @inlinable
  init(upstream: Upstream, initial: Output, combine: @escaping (Output, Upstream.Event) -> Output) {
    self.upstream = upstream
    self.initial = initial
    self.combine = combine
  }

  /// The upstream's replay length: one accumulation per replayed event.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream, delivering the accumulation after each event.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Output) -> Void) -> any DisposableType {
    observe(observer, registered: {})
  }

  /// Observes the upstream, delivering the accumulation after each event; `registered` is
  /// forwarded as is.
  @inlinable
  @discardableResult
  public func observe(
    _ observer: @escaping (Output) -> Void,
    registered: @escaping () -> Void
  ) -> any DisposableType {
    let combine = self.combine
    // Per-observer state, captured once at subscription. Delivery to one observer is never
    // concurrent (guarantee 1), so a plain captured var is safe here.
    var accumulation = initial
    return upstream.observe(
      { event in
        accumulation = combine(accumulation, event)
        observer(accumulation)
      },
      registered: registered
    )
  }
}

extension EventProducerType {
  /// Emits the running accumulation after each event (Bond v4's `reduce`), starting from `initial`
  /// for each observer.
  ///
  /// ```swift
  /// numbers.reduce(0) { $0 + $1 }.observe { print($0) }   // 1, 2, 3 → 1, 3, 6
  /// ```
  /// - Parameters:
  ///   - initial: the accumulation before the first event; not delivered itself.
  ///   - combine: called once per event per observer, on the delivering thread.
  /// - Returns: a lazy producer with the same replay length.
  @inlinable
  public func reduce<Output>(
    _ initial: Output,
    _ combine: @escaping (Output, Event) -> Output
  ) -> Reduce<Self, Output> {
    Reduce(upstream: self, initial: initial, combine: combine)
  }
}
