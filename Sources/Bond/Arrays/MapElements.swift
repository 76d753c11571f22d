/// The producer that ``EventProducerType/mapElements(_:)`` returns: an observable array's events
/// with every element transformed.
/// - Note: thread-safe as its upstream is; a lazy value (observing it observes the upstream once).
public struct MapElements<Upstream: EventProducerType, Source, Element>: EventProducerType
where Upstream.Event == ObservableArrayEvent<Source> {
  /// The events: the transformed array's.
  public typealias Event = ObservableArrayEvent<Element>

  @usableFromInline let upstream: Upstream
  @usableFromInline let transform: (Source) -> Element

  @inlinable
  init(upstream: Upstream, transform: @escaping (Source) -> Element) {
    self.upstream = upstream
    self.transform = transform
  }

  /// The upstream's replay length (each event maps to one event).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream; the end and `registered` are forwarded unchanged.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let transform = self.transform
    return upstream.observe(with: observer.withEvent { event in observer.event(event.mapElements(transform)) })
  }
}

extension EventProducerType {
  /// Transforms the elements of an observable array's events (any producer of
  /// ``ObservableArrayEvent``): the same operations at the same indices, with `transform` applied
  /// to the elements each operation carries. The whole array is not transformed on every event:
  /// an event's ``ObservableArrayEvent/sequence`` is computed only when it is read.
  ///
  /// ```swift
  /// names.mapElements { $0.uppercased() }.observe { print($0.operation) }
  /// names.append("Kirk")  // prints insert(elements: ["KIRK"], fromIndex: ...)
  /// ```
  ///
  /// `transform` should be a pure function: it may run again when `sequence` is read, on the
  /// reading thread. (Named `mapElements` so that `map` stays the producer's event-level map.)
  @inlinable
  public func mapElements<Source, T>(_ transform: @escaping (Source) -> T) -> MapElements<Self, Source, T>
  where Event == ObservableArrayEvent<Source> {
    MapElements(upstream: self, transform: transform)
  }
}
