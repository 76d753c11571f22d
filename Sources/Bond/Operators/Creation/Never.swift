/// The result of ``EventProducer/never()``: no event and no end, ever.
///
/// Each observer receives only `registered`, during its `observe` call. Nothing is kept: the
/// observer is released as soon as `observe` returns, and disposing the returned disposable only
/// marks it disposed.
/// - Note: thread-safe: it holds nothing.
public struct NeverEnding<Event>: EventProducerType {
  @inlinable
  init() {}

  /// 0: nothing is delivered.
  @inlinable
  public var replayLength: Int { 0 }

  /// Delivers `registered` and nothing more.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    observer.registered?()
    return SimpleDisposable()
  }
}

extension EventProducer {
  /// A producer that sends nothing and never ends (Rx's `never`, Combine's `Empty(completeImmediately:
  /// false)`): a placeholder, or a stream that must not end.
  ///
  /// ```swift
  /// EventProducer<Int>.never().observe { print($0) } finished: { print("done") }   // nothing
  /// ```
  /// - Returns: a producer whose `replayLength` is 0.
  @inlinable
  public static func never() -> NeverEnding<Event> {
    NeverEnding()
  }
}
