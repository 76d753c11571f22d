/// The changes of one ``ObservableArrayEvent`` as a list view's batch update needs them: which
/// rows to delete, insert and reload.
///
/// ```swift
/// var old = names.array
/// names.observeNew { event in
///   let changes = event.changeset(oldCount: old.count)
///   old = event.sequence
///   tableView.performBatchUpdates {
///     tableView.deleteRows(at: changes.deletions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///     tableView.insertRows(at: changes.insertions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///     tableView.reloadRows(at: changes.updates.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///   }
/// }
/// ```
///
/// The indices follow UIKit's batch-update rules: deletions and updates are indices in the old
/// array, insertions indices in the new one; an index is never both deleted and updated. Applying
/// it by hand: remove the deleted elements (``deletions`` is in descending order, so one by one
/// works), then insert at ``insertions`` (ascending), then the kept elements at old indices
/// ``updates`` take their new values; every other kept element is unchanged.
/// - Note: a value type, `Sendable`.
public struct ObservableArrayChangeset: Hashable, Sendable {
  /// Indices in the old array of the removed elements, in descending order.
  public var deletions: [Int]
  /// Indices in the new array of the inserted elements, in ascending order.
  public var insertions: [Int]
  /// Indices in the old array of the kept elements whose value changed, in ascending order.
  public var updates: [Int]

  /// A changeset with the given indices (see the properties for their meaning and order).
  public init(deletions: [Int] = [], insertions: [Int] = [], updates: [Int] = []) {
    self.deletions = deletions
    self.insertions = insertions
    self.updates = updates
  }

  /// Whether nothing changed.
  public var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && updates.isEmpty }
}

extension ObservableArrayOperation {
  /// The changeset of this operation applied to an array of `oldCount` elements.
  ///
  /// A single insert, update or removal costs O(its size); a `.reset` deletes every old index and
  /// inserts every new one; a `.batch` is simulated on the old indices (O(oldCount + its size) per
  /// operation), so an element inserted and later removed in the same batch appears nowhere, and
  /// an update of an element inserted in the batch is part of its insertion.
  /// - Precondition: the operation fits an array of `oldCount` elements.
  public func changeset(oldCount: Int) -> ObservableArrayChangeset {
    precondition(
      oldCount >= 0,
      "ObservableArrayOperation.changeset(oldCount:): oldCount must not be negative, got \(oldCount)"
    )
    switch self {
    case .insert(let elements, let fromIndex):
      Self.check(fromIndex >= 0 && fromIndex <= oldCount, self, oldCount)
      return ObservableArrayChangeset(insertions: Array(fromIndex..<fromIndex + elements.count))
    case .update(let elements, let fromIndex):
      Self.check(fromIndex >= 0 && fromIndex + elements.count <= oldCount, self, oldCount)
      return ObservableArrayChangeset(updates: Array(fromIndex..<fromIndex + elements.count))
    case .remove(let range):
      Self.check(range.lowerBound >= 0 && range.upperBound <= oldCount, self, oldCount)
      return ObservableArrayChangeset(deletions: range.reversed())
    case .reset(let array):
      return ObservableArrayChangeset(deletions: (0..<oldCount).reversed(), insertions: Array(array.indices))
    case .batch:
      // Each position holds the old index of the element there, or -1 for an inserted one.
      var positions = Array(0..<oldCount)
      var updated = [Bool](repeating: false, count: oldCount)
      simulate(on: &positions, updated: &updated)
      var kept = [Bool](repeating: false, count: oldCount)
      var insertions: [Int] = []
      for (index, old) in positions.enumerated() {
        if old < 0 { insertions.append(index) } else { kept[old] = true }
      }
      var deletions: [Int] = []
      var updates: [Int] = []
      for old in (0..<oldCount).reversed() where !kept[old] { deletions.append(old) }
      for old in 0..<oldCount where kept[old] && updated[old] { updates.append(old) }
      return ObservableArrayChangeset(deletions: deletions, insertions: insertions, updates: updates)
    }
  }

  func simulate(on positions: inout [Int], updated: inout [Bool]) {
    switch self {
    case .insert(let elements, let fromIndex):
      Self.check(fromIndex >= 0 && fromIndex <= positions.count, self, positions.count)
      positions.insert(contentsOf: repeatElement(-1, count: elements.count), at: fromIndex)
    case .update(let elements, let fromIndex):
      Self.check(fromIndex >= 0 && fromIndex + elements.count <= positions.count, self, positions.count)
      for index in fromIndex..<fromIndex + elements.count where positions[index] >= 0 {
        updated[positions[index]] = true
      }
    case .remove(let range):
      Self.check(range.lowerBound >= 0 && range.upperBound <= positions.count, self, positions.count)
      positions.removeSubrange(range)
    case .reset(let array):
      positions = Array(repeating: -1, count: array.count)
    case .batch(let operations):
      for operation in operations { operation.simulate(on: &positions, updated: &updated) }
    }
  }

  static func check(_ valid: Bool, _ operation: Self, _ count: Int) {
    precondition(
      valid,
      "ObservableArrayOperation.changeset(oldCount:): \(operation) does not fit an array of \(count) elements"
    )
  }
}

extension ObservableArrayEvent {
  /// The changeset of this event's operation applied to an array of `oldCount` elements (the
  /// ``sequence`` of the event before, or the count the observer has seen so far).
  public func changeset(oldCount: Int) -> ObservableArrayChangeset {
    operation.changeset(oldCount: oldCount)
  }
}
