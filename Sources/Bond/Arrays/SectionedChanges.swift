/// The producer that ``ObservableArray/sectionedChanges()`` returns: the changes of a
/// two-dimensional observable array (sections of rows) as ``ObservableArraySectionedEvent``s.
/// - Note: thread-safe: the outer and inner arrays may be mutated from any threads; each
///   observation serializes their events (lossless, in each array's order).
public struct SectionedChanges<Row>: EventProducerType {
  /// The events: one per change of the sections or of one section's rows.
  public typealias Event = ObservableArraySectionedEvent<Row>

  @usableFromInline let source: ObservableArray<ObservableArray<Row>>

  @inlinable
  init(source: ObservableArray<ObservableArray<Row>>) {
    self.source = source
  }

  /// 1: a new observer first receives every section as inserted.
  public var replayLength: Int { 1 }

  /// Registers `observer`: it first receives the current sections (all inserted), then one event
  /// per change of the outer array or of an inner one; `registered` right after the first event;
  /// `finished` when the outer array ends (is deallocated), after every change before it.
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let source = self.source
    return Inbox<SectionedChangesInput<Row>>.observation(pressure: observer.pressure) { inbox in
      let inners = SectionedInnerObservations()
      let sink = SectionedChangesSink(inbox: inbox, observer: observer, inners: inners)
      inbox.open { sink.receive($0) }
      // After the inbox's: disposing the observation (or its end) stops the deliveries first.
      inbox.disposables.add(inners)
      let serializer = inbox.serializer
      // Its end is always observed (the inner observations go with it); it comes through the
      // inbox after every change queued before it.
      inbox.disposables.add(
        source.observe(
          with: EventObserver(
            { serializer.next(.outer($0)) },
            finished: inbox.sender(.outerEnded),
            registered: inbox.sender(observer.registered == nil ? nil : .registered),
            pressure: inbox.pressure
          )
        )
      )
    }
  }
}

extension ObservableArray {
  /// The changes of this two-dimensional array (sections, each an observable array of rows) and
  /// of every inner array it holds, flattened into one stream of section and index-path changes,
  /// each with the sections' rows after it: what a sectioned table or collection view needs.
  ///
  /// ```swift
  /// let sections = ObservableArray([captains, firstOfficers])
  /// sections.sectionedChanges().observe { event in
  ///   // event.sections: [[String]]; event.changeset.sections / .rowInsertions / ...
  /// }
  /// firstOfficers.append("Worf")  // rowInsertions == [[1, 3]]
  /// ```
  ///
  /// A one-dimensional array becomes one section with ``lift()``.
  public func sectionedChanges<Row>() -> SectionedChanges<Row> where Element == ObservableArray<Row> {
    SectionedChanges(source: self)
  }
}
