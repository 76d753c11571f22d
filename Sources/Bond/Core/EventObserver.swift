/// Everything one observation receives: each event, the end of the stream, and the end of its own
/// registration. The one thing every producer and operator implements
/// (``EventProducerType/observe(with:)``); `observe(_:)`, `observe(_:finished:)`,
/// `observe(_:registered:)` and `observeNew(_:)` are built on it.
///
/// ```swift
/// producer.observe(with: EventObserver({ print($0) }, finished: { print("done") }))
/// // the same as
/// producer.observe { print($0) } finished: { print("done") }
/// ```
///
/// `finished` and `registered` are optional so that a chain passes "nobody asked" through as `nil`
/// and no operator schedules work only to call an empty closure.
public struct EventObserver<Event> {
  /// Called with each event, one call at a time, in delivery order.
  public var event: (Event) -> Void
  /// Called once after the last event when the stream ends; never after `dispose()`.
  public var finished: (() -> Void)?
  /// Called once, in delivery order, right after the events the registration itself delivers (the
  /// replay, and what a chain derives from its sources' replay and `startWith`), before any later event.
  public var registered: (() -> Void)?
  /// The gate of the `.backpressure` stage this observation feeds (flow control): every operator
  /// passes it on to the observations it makes of its sources, and each producer it reaches is not
  /// writable while the gate is under pressure. `nil` when no such stage is downstream.
  @usableFromInline var pressure: FlowGate?
  /// The disposable of the observation downstream that this observer serves, when that
  /// observation can end before this `observe` returns (an operator that ends early: `take`,
  /// `first()`, `take(while:)`, the aggregates). A producer that delivers during `observe` (`from`)
  /// stops once it is disposed: nobody downstream wants more. Passed on like `pressure`.
  @usableFromInline var lifetime: (any DisposableType)?

  /// An observer of events, and optionally of the end and of the end of registration.
  @inlinable
  public init(
    _ event: @escaping (Event) -> Void,
    finished: (() -> Void)? = nil,
    registered: (() -> Void)? = nil
  ) {
    self.event = event
    self.finished = finished
    self.registered = registered
    self.pressure = nil
    self.lifetime = nil
  }

  /// An observer that carries a stage's pressure upstream (flow control).
  @inlinable
  init(
    _ event: @escaping (Event) -> Void,
    finished: (() -> Void)?,
    registered: (() -> Void)?,
    pressure: FlowGate?,
    lifetime: (any DisposableType)? = nil
  ) {
    self.event = event
    self.finished = finished
    self.registered = registered
    self.pressure = pressure
    self.lifetime = lifetime
  }

  /// The same end and registration callbacks around another event handler: what a stage of a
  /// chain passes upstream (with the pressure of the stage downstream, if any).
  @inlinable
  public func withEvent<Upstream>(_ event: @escaping (Upstream) -> Void) -> EventObserver<Upstream> {
    EventObserver<Upstream>(event, finished: finished, registered: registered, pressure: pressure, lifetime: lifetime)
  }
}
