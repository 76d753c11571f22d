/// The producer that ``EventProducerType/filterElements(_:)`` returns: an observable array's events
/// re-indexed into the array of the elements that pass the filter.
/// - Note: thread-safe as its upstream is; a lazy value (each observation keeps its own state).
public struct FilterElements<Upstream: EventProducerType, Element>: EventProducerType
where Upstream.Event == ObservableArrayEvent<Element> {
  /// The events: the filtered array's.
  public typealias Event = ObservableArrayEvent<Element>

  @usableFromInline let upstream: Upstream
  @usableFromInline let isIncluded: (Element) -> Bool

  @inlinable
  init(upstream: Upstream, isIncluded: @escaping (Element) -> Bool) {
    self.upstream = upstream
    self.isIncluded = isIncluded
  }

  /// The upstream's replay length (an event maps to at most one event).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream; `registered` is forwarded unchanged.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let isIncluded = self.isIncluded
    // Touched only from the upstream's deliveries to this observer, which are serialized.
    let state = FilterElementsBox<Element>()
    return upstream.observe(
      with: observer.withEvent { event in
        guard let operation = state.state.translate(event.operation, sequence: event.sequence, isIncluded: isIncluded)
        else {
          return
        }
        // The filtered array, kept up to date by `translate`: shared with the event, not rebuilt.
        observer.event(ObservableArrayEvent(sequence: state.state.filtered, operation: operation))
      }
    )
  }
}

extension EventProducerType {
  /// Keeps the elements of an observable array's events (any producer of ``ObservableArrayEvent``)
  /// that satisfy `isIncluded`: each operation is re-indexed into the filtered array (an update
  /// may become an insertion or a removal there); an operation that changes nothing in the
  /// filtered array sends nothing; a `.reset` is sent only for a source `.reset` (or when the
  /// source sends an operation that does not fit what this observation has seen).
  ///
  /// ```swift
  /// names.filterElements { $0.count <= 4 }.observe { print($0.sequence) }
  /// ```
  ///
  /// `isIncluded` should be a pure function: it runs once per element an operation carries, on the
  /// delivering thread. Each observation keeps the filtered array (its events' `sequence`) and
  /// updates it per operation: an append costs O(1), whatever the array's size.
  /// (Named `filterElements` so that `filter` stays the producer's event-level filter.)
  @inlinable
  public func filterElements<Element>(_ isIncluded: @escaping (Element) -> Bool) -> FilterElements<Self, Element>
  where Event == ObservableArrayEvent<Element> {
    FilterElements(upstream: self, isIncluded: isIncluded)
  }
}
