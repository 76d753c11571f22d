/// A source of events that observers can watch.
///
/// Conforming types: ``EventProducer``, ``Observable``, ``ObservableArray`` and every operator's
/// result (a light value that observes its upstream once per observer).
///
/// The rules every producer of Bond keeps (<doc:Contract> states them in full, each with its test):
/// delivery is lossless and serialized, a reentrant send is queued rather than recursed into,
/// no new delivery starts after `dispose()` returns, and a new observer first receives the replay.
public protocol EventProducerType<Event> {
  /// The type of the events this producer sends.
  associatedtype Event

  /// The most events a new observer can receive at registration (its replay).
  var replayLength: Int { get }

  /// Registers `observer`: it first receives the replay, then every later event.
  /// - Returns: a disposable that ends the observation.
  @discardableResult
  func observe(_ observer: @escaping (Event) -> Void) -> any DisposableType

  /// Registers `observer` and calls `registered` in delivery order right after the events that the
  /// registration itself delivers (the replay, and what a chain derives from it), before any
  /// later event. ``observeNew(_:)`` is built on it.
  ///
  /// The default implementation calls `registered` when ``observe(_:)`` returns, which is exact
  /// for a producer that delivers its replay synchronously.
  @discardableResult
  func observe(_ observer: @escaping (Event) -> Void, registered: @escaping () -> Void) -> any DisposableType
}

extension EventProducerType {
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void, registered: @escaping () -> Void) -> any DisposableType {
    let disposable = observe(observer)
    registered()
    return disposable
  }
}

/// Something that can receive events from a binding (``EventProducerType/bindTo(_:)-mchj``).
public protocol BindableType<Element> {
  /// The type of the values the target accepts.
  associatedtype Element

  /// Returns a function that feeds an element into this target.
  ///
  /// - Parameter disconnectDisposable: the binding's disposable; the target disposes it when it is
  ///   deallocated, so the binding ends with the target.
  func sink(_ disconnectDisposable: (any DisposableType)?) -> (Element) -> Void
}
