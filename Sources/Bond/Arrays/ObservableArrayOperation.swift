/// One change applied to an ``ObservableArray``: what its observers receive in
/// ``ObservableArrayEvent/operation``.
///
/// Indices are positions in the array the operation is applied to. A ``batch(_:)`` holds
/// operations applied in order, each on the result of the one before (so an index in the second
/// operation already counts the first operation's insertions and removals).
///
/// ```swift
/// var mirror = ["Jim", "Spock"]
/// ObservableArrayOperation.insert(elements: ["Scotty"], fromIndex: 2).apply(to: &mirror)
/// // mirror == ["Jim", "Spock", "Scotty"]
/// ```
///
/// Only ``batch(_:)`` is stored indirectly (boxed): the other cases, sent on every mutation, cost
/// no extra allocation.
/// - Note: a value type; `Sendable` when `Element` is.
public enum ObservableArrayOperation<Element> {
  /// `elements` were inserted, the first at `fromIndex`.
  case insert(elements: [Element], fromIndex: Int)
  /// The elements from `fromIndex` on were replaced by `elements` (as many as there are).
  case update(elements: [Element], fromIndex: Int)
  /// The elements at `range` were removed.
  case remove(range: Range<Int>)
  /// The whole array was replaced by `array`.
  case reset(array: [Element])
  /// `operations` were applied in order, each on the result of the one before.
  indirect case batch([ObservableArrayOperation<Element>])
}

extension ObservableArrayOperation: Sendable where Element: Sendable {}
extension ObservableArrayOperation: Equatable where Element: Equatable {}

extension ObservableArrayOperation {
  /// Applies this operation to `array`, which must be the array it was made for.
  ///
  /// Rebuilding an array from an observable array's events gives the observable array's
  /// contents: `var mirror: [E] = []; array.observe { $0.operation.apply(to: &mirror) }`.
  /// - Precondition: every index is valid for the array it applies to (the program stops with a
  ///   message naming the operation otherwise).
  @inlinable
  public func apply(to array: inout [Element]) {
    switch self {
    case .insert(let elements, let fromIndex):
      precondition(
        fromIndex >= 0 && fromIndex <= array.count,
        "ObservableArrayOperation.apply(to:): insert index \(fromIndex) is out of range 0...\(array.count)"
      )
      if fromIndex == array.count {
        // The common case (an append): no shifting; one element without iterating.
        if elements.count == 1 { array.append(elements[0]) } else { array.append(contentsOf: elements) }
      } else {
        array.insert(contentsOf: elements, at: fromIndex)
      }
    case .update(let elements, let fromIndex):
      precondition(
        fromIndex >= 0 && fromIndex + elements.count <= array.count,
        "ObservableArrayOperation.apply(to:): update of \(elements.count) elements from index \(fromIndex) is out of range 0..<\(array.count)"
      )
      array.replaceSubrange(fromIndex..<fromIndex + elements.count, with: elements)
    case .remove(let range):
      precondition(
        range.lowerBound >= 0 && range.upperBound <= array.count,
        "ObservableArrayOperation.apply(to:): remove range \(range) is out of range 0..<\(array.count)"
      )
      array.removeSubrange(range)
    case .reset(let newArray):
      array = newArray
    case .batch(let operations):
      for operation in operations { operation.apply(to: &array) }
    }
  }

  /// The number of elements after applying this operation to an array of `count` elements.
  @inlinable
  public func count(after count: Int) -> Int {
    switch self {
    case .insert(let elements, _): return count + elements.count
    case .update: return count
    case .remove(let range): return count - range.count
    case .reset(let array): return array.count
    case .batch(let operations): return operations.reduce(count) { $1.count(after: $0) }
    }
  }

  /// The same operation with every element transformed (indices unchanged).
  public func mapElements<T>(_ transform: (Element) throws -> T) rethrows -> ObservableArrayOperation<T> {
    switch self {
    case .insert(let elements, let fromIndex):
      return .insert(elements: try elements.map(transform), fromIndex: fromIndex)
    case .update(let elements, let fromIndex):
      return .update(elements: try elements.map(transform), fromIndex: fromIndex)
    case .remove(let range): return .remove(range: range)
    case .reset(let array): return .reset(array: try array.map(transform))
    case .batch(let operations): return .batch(try operations.map { try $0.mapElements(transform) })
    }
  }

  /// Whether applying the operation leaves any array unchanged (an empty insert, update, removal
  /// or batch of such). A reset is never empty.
  @inlinable
  public var isEmpty: Bool {
    switch self {
    case .insert(let elements, _), .update(let elements, _): return elements.isEmpty
    case .remove(let range): return range.isEmpty
    case .reset: return false
    case .batch(let operations): return operations.allSatisfy(\.isEmpty)
    }
  }
}
