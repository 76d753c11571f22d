/// The result of ``EventProducer/empty()``: the end at once, for each observer.
///
/// Cold: during its `observe` call each observer receives `registered`, then `finished`, and no
/// event. The returned disposable is already disposed.
/// - Note: thread-safe: it holds nothing.
public struct Empty<Event>: EventProducerType {
  @inlinable
  init() {}

  /// 0: nothing is delivered.
  @inlinable
  public var replayLength: Int { 0 }

  /// Delivers `registered`, then the end, before returning.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    endedObservation(observer)
  }
}

extension EventProducer {
  /// A cold producer with no event: each observer receives the end at once, during `observe` (Rx's
  /// `empty`, Combine's `Empty`).
  ///
  /// ```swift
  /// EventProducer<Int>.empty().observe { print($0) } finished: { print("done") }   // done
  /// ```
  /// - Returns: a producer whose `replayLength` is 0.
  @inlinable
  public static func empty() -> Empty<Event> {
    Empty()
  }
}
