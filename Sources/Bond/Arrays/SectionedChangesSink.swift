/// One observation of ``SectionedChanges``: follows the outer array and every inner array it
/// holds, keeps the sections' rows, and turns each event into an ``ObservableArraySectionedEvent``.
///
/// Events of the outer and inner arrays may arrive on different threads: they all go through the
/// private producer `input`, whose single observer (`receive`) is never called concurrently and
/// alone touches the mirror. An inner array is subscribed with a snapshot taken atomically with the
/// registration, so its rows and its later events meet exactly.
/// - Note: thread-safe through `input`; the mirror is touched only by `receive`.
@usableFromInline
final class SectionedChangesSink<Row> {
  @usableFromInline let observer: (ObservableArraySectionedEvent<Row>) -> Void
  @usableFromInline var registered: (() -> Void)?
  /// Serializes the outer and inner events (lossless, reentrancy-safe).
  @usableFromInline let input = EventProducer<SectionedChangesInput<Row>>()
  /// The inner observations by id; `nil` once disposed (a late subscription is disposed at once).
  @usableFromInline let inners = LockedState<[Int: any DisposableType]?>([:])

  // Touched only by `receive` (serialized by `input`).
  @usableFromInline var sections: [[Row]] = []
  @usableFromInline var sectionIDs: [Int] = []
  @usableFromInline var nextID = 0

  @usableFromInline
  init(observer: @escaping (ObservableArraySectionedEvent<Row>) -> Void, registered: (() -> Void)?) {
    self.observer = observer
    self.registered = registered
  }

  deinit {
    disposeInners()
  }

  @usableFromInline
  func receive(_ input: SectionedChangesInput<Row>) {
    switch input {
    case .outer(let event):
      let oldCount = sections.count
      apply(event.operation)
      let changes = event.operation.changeset(oldCount: oldCount)
      observer(
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
      observer(
        ObservableArraySectionedEvent(
          sections: sections,
          changeset: ObservableArraySectionedChangeset(rows: changes, inSection: section)
        )
      )
    case .registered:
      if let registered {
        self.registered = nil
        registered()
      }
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
        unsubscribe(sectionIDs[fromIndex + offset])
        let (id, rows) = subscribe(array)
        sectionIDs[fromIndex + offset] = id
        sections[fromIndex + offset] = rows
      }
    case .remove(let range):
      for id in sectionIDs[range] { unsubscribe(id) }
      sectionIDs.removeSubrange(range)
      sections.removeSubrange(range)
    case .reset(let arrays):
      for id in sectionIDs { unsubscribe(id) }
      sectionIDs = []
      sections = []
      apply(.insert(elements: arrays, fromIndex: 0))
    case .batch(let operations):
      for operation in operations { apply(operation) }
    }
  }

  @usableFromInline
  func subscribe(_ array: ObservableArray<Row>) -> (id: Int, rows: [Row]) {
    nextID += 1
    let id = nextID
    let (rows, disposable) = array.observeAfterSnapshot { [weak self] event in
      self?.input.next(.inner(id: id, event))
    }
    let kept = inners.withLock { inners -> Bool in
      guard inners != nil else { return false }
      inners![id] = disposable
      return true
    }
    if !kept { disposable.dispose() }
    return (id, rows)
  }

  @usableFromInline
  func unsubscribe(_ id: Int) {
    let disposable = inners.withLock { inners in inners?.removeValue(forKey: id) }
    // Disposed outside the lock: disposal may purge at once, which releases user closures.
    disposable?.dispose()
  }

  @usableFromInline
  func disposeInners() {
    let disposables = inners.withLock { inners -> [any DisposableType] in
      defer { inners = nil }
      return inners.map { Array($0.values) } ?? []
    }
    for disposable in disposables { disposable.dispose() }
  }
}

/// What a ``SectionedChangesSink`` receives, serialized through its private producer.
@usableFromInline
enum SectionedChangesInput<Row> {
  /// An event of the outer array (sections).
  case outer(ObservableArrayEvent<ObservableArray<Row>>)
  /// An event of the inner array subscribed as `id`.
  case inner(id: Int, ObservableArrayEvent<Row>)
  /// The outer array's registration is complete (after its replay).
  case registered
}
