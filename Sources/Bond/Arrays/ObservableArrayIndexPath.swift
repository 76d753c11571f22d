/// A row in a sectioned list: the section's index and the row's index in it (UIKit's
/// `IndexPath(row:section:)`, without Foundation).
/// - Note: a value type, `Sendable`.
public struct ObservableArrayIndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The section's index.
  public var section: Int
  /// The row's index in its section.
  public var row: Int

  /// The index path of `row` in `section`.
  public init(section: Int, row: Int) {
    self.section = section
    self.row = row
  }

  /// Section first, then row.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.section, lhs.row) < (rhs.section, rhs.row)
  }

  /// `"[section, row]"`.
  public var description: String { "[\(section), \(row)]" }
}
