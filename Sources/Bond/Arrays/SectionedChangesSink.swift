/// One observation of ``SectionedChanges``: follows the outer array and every inner array it
/// holds, keeps the sections' rows, and turns each event into an ``ObservableArraySectionedEvent``.
///
/// Events of the outer and inner arrays may arrive on different threads: they all go through the
/// observation's ``Inbox``, whose single observer (`receive`) is never called concurrently and
/// alone touches the mirror. An inner array is subscribed with a snapshot taken atomically with the
/// registration, so its rows and its later events meet exactly.
@usableFromInline
final class SectionedChangesSink<Row>: InboxSink {
  @usableFromInline let output: InboxSinkOutput<ObservableArraySectionedEvent<Row>, SectionedChangesInput<Row>>
  /// The inner arrays' observations; one of the observation's disposables.
  @usableFromInline let inners: SectionedInnerObservations
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var sections: [[Row]] = []
  @exclusivity(unchecked) @usableFromInline var sectionIDs: [Int] = []
  @exclusivity(unchecked) @usableFromInline var nextID = 0

  @usableFromInline
  init(
    inbox: Inbox<SectionedChangesInput<Row>>,
    observer: EventObserver<ObservableArraySectionedEvent<Row>>,
    inners: SectionedInnerObservations
  ) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    registered = observer.registered
    self.inners = inners
  }

  @usableFromInline
  func receive(_ input: SectionedChangesInput<Row>) {
    switch input {
    case .outer(let event):
      let oldCount = sections.count
      apply(event.operation)
      let changes = event.operation.changeset(oldCount: oldCount)
      output.observer(
        ObservableArraySectionedEvent(
          sections: sections,
          changeset: ObservableArraySectionedChangeset(sections: changes)
        )
      )
    case .inner(let id, let event):
      // An event of an inner array removed meanwhile (already unsubscribed) is dropped.
      guard let section = sectionIDs.firstIndex(of: id) else { return }
      let oldCount = sections[section].count
      event.operation.apply(to: &sections[section])
      let changes = event.operation.changeset(oldCount: oldCount)
      output.observer(
        ObservableArraySectionedEvent(
          sections: sections,
          changeset: ObservableArraySectionedChangeset(rows: changes, inSection: section)
        )
      )
    case .registered:
      callRegistered()
    case .outerEnded:
      end()  // disposes the inner observations too
    }
  }

  /// Applies an outer operation to the sections, subscribing to the inner arrays it brings and
  /// unsubscribing from those it removes.
  @usableFromInline
  func apply(_ operation: ObservableArrayOperation<ObservableArray<Row>>) {
    switch operation {
    case .insert(let arrays, let fromIndex):
      for (offset, array) in arrays.enumerated() {
        let (id, rows) = subscribe(array)
        sectionIDs.insert(id, at: fromIndex + offset)
        sections.insert(rows, at: fromIndex + offset)
      }
    case .update(let arrays, let fromIndex):
      for (offset, array) in arrays.enumerated() {
        inners.remove(sectionIDs[fromIndex + offset])
        let (id, rows) = subscribe(array)
        sectionIDs[fromIndex + offset] = id
        sections[fromIndex + offset] = rows
      }
    case .remove(let range):
      for id in sectionIDs[range] { inners.remove(id) }
      sectionIDs.removeSubrange(range)
      sections.removeSubrange(range)
    case .reset(let arrays):
      for id in sectionIDs { inners.remove(id) }
      sectionIDs = []
      sections = []
      apply(.insert(elements: arrays, fromIndex: 0))
    case .batch(let operations):
      for operation in operations { apply(operation) }
    }
  }

  /// Observes `array` after a snapshot of its rows: its events go into the inbox.
  @usableFromInline
  func subscribe(_ array: ObservableArray<Row>) -> (id: Int, rows: [Row]) {
    nextID += 1
    let id = nextID
    // The inner's observer holds the inbox (as every upstream's does), not the sink.
    let serializer = output.inbox.serializer
    let (rows, disposable) = array.observeAfterSnapshot { event in
      serializer.next(.inner(id: id, event))
    }
    inners.add(disposable, id: id)
    return (id, rows)
  }
}

/// The observations of a ``SectionedChanges`` observation's inner arrays, by id: one of the
/// observation's disposables (after the inbox's), so disposing the observation or its end lets
/// them all go. An inner subscribed after that is disposed at once.
/// - Note: thread-safe.
@usableFromInline
final class SectionedInnerObservations: DisposableType {
  /// `nil` once disposed.
  @usableFromInline let observations = LockedState<[Int: any DisposableType]?>([:])

  @usableFromInline
  init() {}

  @usableFromInline
  var isDisposed: Bool { observations.withLock { $0 == nil } }

  @usableFromInline
  func add(_ disposable: any DisposableType, id: Int) {
    let kept = observations.withLock { observations -> Bool in
      guard observations != nil else { return false }
      observations![id] = disposable
      return true
    }
    if !kept { disposable.dispose() }
  }

  @usableFromInline
  func remove(_ id: Int) {
    let disposable = observations.withLock { $0?.removeValue(forKey: id) }
    // Disposed outside the lock: disposal may purge at once, which releases user closures.
    disposable?.dispose()
  }

  @usableFromInline
  func dispose() {
    let disposables = observations.withLock { observations -> [any DisposableType] in
      defer { observations = nil }
      return observations.map { Array($0.values) } ?? []
    }
    for disposable in disposables { disposable.dispose() }
  }
}

/// What a ``SectionedChangesSink`` receives through its inbox.
@usableFromInline
enum SectionedChangesInput<Row> {
  /// An event of the outer array (sections).
  case outer(ObservableArrayEvent<ObservableArray<Row>>)
  /// An event of the inner array subscribed as `id`.
  case inner(id: Int, ObservableArrayEvent<Row>)
  /// The outer array's registration is complete (after its replay).
  case registered
  /// The outer array has ended (it was deallocated).
  case outerEnded
}
