/// The result of ``EventProducer/just(_:)``: one event, then the end, for each observer.
///
/// Cold: each observer gets its own run, during its `observe` call (on the observing thread):
/// the event, then `registered`, then `finished`. The returned disposable is already disposed.
/// - Note: thread-safe: it holds only the event.
public struct Just<Event>: EventProducerType {
  /// The event each observer receives.
  @usableFromInline let value: Event

  @inlinable
  init(value: Event) {
    self.value = value
  }

  /// 1: the event is delivered during registration.
  @inlinable
  public var replayLength: Int { 1 }

  /// Delivers the event, then `registered`, then the end, before returning.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    observer.event(value)
    return endedObservation(observer)
  }
}

extension EventProducer {
  /// A cold producer of one event: each observer receives `event`, then the end, during `observe`
  /// (Rx's and Combine's `Just`).
  ///
  /// ```swift
  /// EventProducer.just(1).observe { print($0) } finished: { print("done") }   // 1, done
  /// ```
  /// - Returns: a producer whose `replayLength` is 1.
  @inlinable
  public static func just(_ event: Event) -> Just<Event> {
    Just(value: event)
  }
}
