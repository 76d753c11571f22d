/// What ``ObservableArray/sectionedChanges()`` sends: the sections after a change and the change
/// as a list view's batch update needs it.
/// - Note: a value type; `Sendable` when `Row` is.
public struct ObservableArraySectionedEvent<Row> {
  /// The rows of every section after the change.
  public let sections: [[Row]]
  /// What changed, by section index and by index path.
  public let changeset: ObservableArraySectionedChangeset

  /// An event with the given sections and changeset.
  public init(sections: [[Row]], changeset: ObservableArraySectionedChangeset) {
    self.sections = sections
    self.changeset = changeset
  }
}

extension ObservableArraySectionedEvent: Sendable where Row: Sendable {}
