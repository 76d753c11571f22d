/// A type-erased producer: any producer or operator chain of `Event`s, behind one type to store in
/// a property or return from a function (Combine's `AnyPublisher`).
///
/// ```swift
/// final class ViewModel {
///   let title: AnyEventProducer<String>
///   init(user: Observable<User>) {
///     title = user.map(\.name).distinct().eraseToAnyEventProducer()
///   }
/// }
/// ```
///
/// Observing it observes the wrapped producer (events, end and registration pass through
/// unchanged); it costs one indirect call per observation, not per event.
public struct AnyEventProducer<Event>: EventProducerType {
  /// Observes the wrapped producer.
  @usableFromInline let observeWrapped: (EventObserver<Event>) -> any DisposableType

  /// The wrapped producer's replay length.
  public let replayLength: Int

  /// Wraps `producer`.
  @inlinable
  public init<Wrapped: EventProducerType>(_ producer: Wrapped) where Wrapped.Event == Event {
    if let erased = producer as? AnyEventProducer<Event> {
      self = erased
      return
    }
    replayLength = producer.replayLength
    observeWrapped = { producer.observe(with: $0) }
  }

  /// Observes the wrapped producer with `observer`.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    observeWrapped(observer)
  }
}

extension EventProducerType {
  /// Wraps this producer in an ``AnyEventProducer``, hiding its concrete type.
  ///
  /// ```swift
  /// func prices() -> AnyEventProducer<Double> { feed.map(\.price).eraseToAnyEventProducer() }
  /// ```
  @inlinable
  public func eraseToAnyEventProducer() -> AnyEventProducer<Event> {
    AnyEventProducer(self)
  }
}
