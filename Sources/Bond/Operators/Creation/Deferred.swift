/// The result of ``EventProducer/deferred(_:)``: a producer made anew for each observer.
///
/// Each `observe` calls `make` (on the observing thread), then observes what it made with the same
/// observer: its events, its end and its `registered` pass through. The observation keeps what
/// `make` returned alive while it lasts (until the end or `dispose()`), so a producer nobody else
/// holds is not deallocated under its observer.
/// - Note: thread-safe as far as `make` and the producers it makes are.
public struct Deferred<Made: EventProducerType>: EventProducerType {
  /// Makes the producer one observer observes.
  @usableFromInline let make: () -> Made

  @inlinable
  init(make: @escaping () -> Made) {
    self.make = make
  }

  /// 0: what a made producer replays is not known before it is made.
  @inlinable
  public var replayLength: Int { 0 }

  /// Calls `make`, then observes the result for `observer`, keeping it alive while observed.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Made.Event>) -> any DisposableType {
    let made = make()
    // The made producer is kept by the closure it holds while it delivers to this observation: the
    // cycle ends when the observation does (disposed or ended).
    return made.observe(
      with: observer.withEvent { event in
        withExtendedLifetime(made) { observer.event(event) }
      }
    )
  }
}

extension EventProducer {
  /// A producer that calls `make` once per observer and observes what it returns (Rx's and
  /// Combine's `Deferred`): each observer gets a fresh producer, made only when it observes.
  ///
  /// ```swift
  /// let fresh = EventProducer<Int>.deferred { Observable(Int.random(in: 0..<10)) }
  /// fresh.observe { print($0) }   // a number of its own per observer
  /// ```
  /// - Parameter make: called on the observing thread, once per `observe`.
  /// - Returns: a producer whose `replayLength` is 0 (what `make` returns is not known in advance).
  @inlinable
  public static func deferred<Made: EventProducerType>(_ make: @escaping () -> Made) -> Deferred<Made>
  where Made.Event == Event {
    Deferred(make: make)
  }
}
