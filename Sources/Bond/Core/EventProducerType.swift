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

  /// Registers `observer`: it first receives the replay, then every later event, then the end
  /// (``EventObserver/finished``) if the stream ends; `registered` right after the replay.
  ///
  /// The one method every producer and operator of Bond implements. The default implementation,
  /// for a type that implements only ``observe(_:)``, calls `registered` when ``observe(_:)``
  /// returns (exact for a producer that delivers its replay synchronously) and never ends.
  /// - Returns: a disposable that ends the observation (without calling `finished`).
  @discardableResult
  func observe(with observer: EventObserver<Event>) -> any DisposableType

  /// Registers `observer`: it first receives the replay, then every later event.
  /// - Returns: a disposable that ends the observation.
  @discardableResult
  func observe(_ observer: @escaping (Event) -> Void) -> any DisposableType
}

extension EventProducerType {
  /// Registers `observer`: it first receives the replay, then every later event.
  /// - Returns: a disposable that ends the observation.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void) -> any DisposableType {
    observe(with: EventObserver(observer))
  }

  /// The default for a type that implements only ``observe(_:)``: see the requirement.
  ///
  /// A type must implement one of the two: each default calls the other. One that implements
  /// neither stops at its first observation with a message naming it (rather than recursing until
  /// the stack overflows).
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let depth = DefaultObserveDepth.enter()
    defer { DefaultObserveDepth.leave() }
    precondition(
      depth < DefaultObserveDepth.limit,
      "EventProducerType: \(Self.self) implements neither observe(with:) nor observe(_:); implement one of them"
    )
    let disposable = observe(observer.event)
    observer.registered?()
    return disposable
  }

  /// Registers `observer` and calls `registered` in delivery order right after the events that the
  /// registration itself delivers (the replay, and what a chain derives from it), before any
  /// later event. ``observeNew(_:)`` is built on it.
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void, registered: @escaping () -> Void) -> any DisposableType {
    observe(with: EventObserver(observer, registered: registered))
  }

  /// Registers `observer` for the events and `finished` for the end of the stream: `finished` is
  /// called once, after the last event, when the producer finishes (``EventProducer/finish()``) or
  /// is deallocated; the observation is then disposed. Never called after `dispose()`.
  ///
  /// ```swift
  /// producer.observe { print($0) } finished: { print("done") }
  /// ```
  @inlinable
  @discardableResult
  public func observe(_ observer: @escaping (Event) -> Void, finished: @escaping () -> Void) -> any DisposableType {
    observe(with: EventObserver(observer, finished: finished))
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
