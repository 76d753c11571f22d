/// The changes of a sectioned list (an ``ObservableArray`` of observable arrays) in one step, as a
/// list view's batch update needs them: sections deleted, inserted and reloaded, and rows deleted,
/// inserted and reloaded, by index path.
///
/// The rules of ``ObservableArrayChangeset`` hold for both levels: deletions and updates are
/// positions before the change (deletions in descending order), insertions positions after it
/// (ascending). ``ObservableArray/sectionedChanges()`` sends one step per event of the outer array
/// (section changes only) or of an inner one (row changes of one section only).
/// - Note: a value type, `Sendable`.
public struct ObservableArraySectionedChangeset: Hashable, Sendable {
  /// Section changes (indices of sections).
  public var sections: ObservableArrayChangeset
  /// Index paths (before the change) of the removed rows, in descending order.
  public var rowDeletions: [ObservableArrayIndexPath]
  /// Index paths (after the change) of the inserted rows, in ascending order.
  public var rowInsertions: [ObservableArrayIndexPath]
  /// Index paths (before the change) of the kept rows whose value changed, in ascending order.
  public var rowUpdates: [ObservableArrayIndexPath]

  /// A changeset with the given changes.
  public init(
    sections: ObservableArrayChangeset = ObservableArrayChangeset(),
    rowDeletions: [ObservableArrayIndexPath] = [],
    rowInsertions: [ObservableArrayIndexPath] = [],
    rowUpdates: [ObservableArrayIndexPath] = []
  ) {
    self.sections = sections
    self.rowDeletions = rowDeletions
    self.rowInsertions = rowInsertions
    self.rowUpdates = rowUpdates
  }

  /// The row changes of `changeset` in `section`.
  public init(rows changeset: ObservableArrayChangeset, inSection section: Int) {
    self.init(
      rowDeletions: changeset.deletions.map { ObservableArrayIndexPath(section: section, row: $0) },
      rowInsertions: changeset.insertions.map { ObservableArrayIndexPath(section: section, row: $0) },
      rowUpdates: changeset.updates.map { ObservableArrayIndexPath(section: section, row: $0) }
    )
  }

  /// Whether nothing changed.
  public var isEmpty: Bool {
    sections.isEmpty && rowDeletions.isEmpty && rowInsertions.isEmpty && rowUpdates.isEmpty
  }
}
