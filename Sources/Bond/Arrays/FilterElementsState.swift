/// What ``FilterElements`` knows of the source array: which source elements pass the filter, and
/// the filtered array itself. Translates each source operation into the operation on the filtered
/// array, incrementally: an append costs O(1) (no array rebuilt, no allocation beyond the
/// operation's own elements, which are reused when they all pass).
///
/// A pure value: one `mutating func` per source operation, no threads (its owner, one observer,
/// is never called concurrently).
@usableFromInline
struct FilterElementsState<Element> {
  /// For each source index, whether that element is in the filtered array.
  @usableFromInline var included: [Bool] = []
  /// How many of `included` are `true` (the filtered array's count).
  @usableFromInline var includedCount = 0
  /// The filtered array after the last translated operation: the events' `sequence` (shared with
  /// them, so it is copied only when an observer keeps one while the next event is built).
  @usableFromInline var filtered: [Element] = []

  @inlinable
  init() {}

  /// The filtered index of source index `index` (how many included elements precede it).
  @inlinable
  func filteredIndex(_ index: Int) -> Int {
    if index == included.count { return includedCount }
    // Counted on the shorter side: appends and prepends cost O(1).
    if index <= included.count - index {
      var count = 0
      for flag in included[..<index] where flag { count += 1 }
      return count
    }
    var after = 0
    for flag in included[index...] where flag { after += 1 }
    return includedCount - after
  }

  /// Whether `operation` can be applied to a source array of `included.count` elements.
  @inlinable
  func isValid(_ operation: ObservableArrayOperation<Element>, count: Int) -> (Bool, Int) {
    switch operation {
    case .insert(let elements, let fromIndex):
      return (fromIndex >= 0 && fromIndex <= count, count + elements.count)
    case .update(let elements, let fromIndex):
      return (fromIndex >= 0 && fromIndex + elements.count <= count, count)
    case .remove(let range):
      return (range.lowerBound >= 0 && range.upperBound <= count, count - range.count)
    case .reset(let array):
      return (true, array.count)
    case .batch(let operations):
      var count = count
      for operation in operations {
        let (valid, after) = isValid(operation, count: count)
        if !valid { return (false, count) }
        count = after
      }
      return (true, count)
    }
  }

  /// Translates a source operation into the filtered array's operation, updating the state
  /// (``filtered`` included: every change of `included` comes with its change of `filtered`). Returns `nil` when the filtered array does not change. An operation that does
  /// not fit the known source array (a producer without replay, observed mid-stream)
  /// resynchronizes from `sequence` (the source array after the operation) with a `.reset`.
  @inlinable
  mutating func translate(
    _ operation: ObservableArrayOperation<Element>,
    sequence: @autoclosure () -> [Element],
    isIncluded: (Element) -> Bool
  ) -> ObservableArrayOperation<Element>? {
    let count = included.count
    switch operation {
    // The operations sent on every mutation, checked and translated without the list of
    // operations a batch needs.
    case .insert(let elements, let fromIndex) where fromIndex >= 0 && fromIndex <= count:
      return insert(elements, at: fromIndex, isIncluded: isIncluded)
    case .remove(let range) where range.lowerBound >= 0 && range.upperBound <= count:
      return remove(range)
    case .reset(let array):
      return reset(array, isIncluded: isIncluded)
    case .update, .batch:
      guard isValid(operation, count: count).0 else { break }
      let operations = apply(operation, isIncluded: isIncluded)
      switch operations.count {
      case 0: return nil
      case 1: return operations[0]
      default: return .batch(operations)
      }
    default:
      break
    }
    return reset(sequence(), isIncluded: isIncluded)  // does not fit: resynchronize
  }

  /// The filtered insertion for a source insertion of `elements` at `fromIndex`, or `nil`.
  @inlinable
  mutating func insert(
    _ elements: [Element],
    at fromIndex: Int,
    isIncluded: (Element) -> Bool
  ) -> ObservableArrayOperation<Element>? {
    let target = filteredIndex(fromIndex)
    if elements.count == 1 {
      // One element (an append, an insert): no list of flags.
      let element = elements[0]
      let flag = isIncluded(element)
      if fromIndex == included.count { included.append(flag) } else { included.insert(flag, at: fromIndex) }
      guard flag else { return nil }
      includedCount += 1
      if target == filtered.count { filtered.append(element) } else { filtered.insert(element, at: target) }
      return .insert(elements: elements, fromIndex: target)  // the source's array, shared
    }
    var flags: [Bool] = []
    flags.reserveCapacity(elements.count)
    var passing: [Element] = []
    for element in elements {
      let flag = isIncluded(element)
      flags.append(flag)
      if flag { passing.append(element) }
    }
    included.insert(contentsOf: flags, at: fromIndex)
    includedCount += passing.count
    if passing.isEmpty { return nil }
    filtered.insert(contentsOf: passing, at: target)
    // All passed: the source's array, shared, rather than the copy.
    return .insert(elements: passing.count == elements.count ? elements : passing, fromIndex: target)
  }

  /// The filtered removal for a source removal of `range`, or `nil`.
  @inlinable
  mutating func remove(_ range: Range<Int>) -> ObservableArrayOperation<Element>? {
    let target = filteredIndex(range.lowerBound)
    var removed = 0
    for flag in included[range] where flag { removed += 1 }
    included.removeSubrange(range)
    includedCount -= removed
    guard removed > 0 else { return nil }
    filtered.removeSubrange(target..<target + removed)
    return .remove(range: target..<target + removed)
  }

  /// The filtered reset for a source reset to `array`.
  @inlinable
  mutating func reset(_ array: [Element], isIncluded: (Element) -> Bool) -> ObservableArrayOperation<Element> {
    var passing: [Element] = []
    included = array.map { element in
      let flag = isIncluded(element)
      if flag { passing.append(element) }
      return flag
    }
    includedCount = passing.count
    filtered = passing
    return .reset(array: passing)
  }

  /// The filtered operations for a valid source operation, in order (a batch flattened).
  @inlinable
  mutating func apply(
    _ operation: ObservableArrayOperation<Element>,
    isIncluded: (Element) -> Bool
  ) -> [ObservableArrayOperation<Element>] {
    var output: [ObservableArrayOperation<Element>] = []
    append(operation, to: &output, isIncluded: isIncluded)
    return output
  }

  @inlinable
  mutating func append(
    _ operation: ObservableArrayOperation<Element>,
    to output: inout [ObservableArrayOperation<Element>],
    isIncluded: (Element) -> Bool
  ) {
    switch operation {
    case .insert(let elements, let fromIndex):
      if let inserted = insert(elements, at: fromIndex, isIncluded: isIncluded) { output.append(inserted) }

    case .update(let elements, let fromIndex):
      var target = filteredIndex(fromIndex)
      for (offset, element) in elements.enumerated() {
        let was = included[fromIndex + offset]
        let now = isIncluded(element)
        included[fromIndex + offset] = now
        switch (was, now) {
        case (true, true):
          Self.merge(.update(elements: [element], fromIndex: target), into: &output)
          filtered[target] = element
          target += 1
        case (true, false):
          Self.merge(.remove(range: target..<target + 1), into: &output)
          filtered.remove(at: target)
          includedCount -= 1
        case (false, true):
          Self.merge(.insert(elements: [element], fromIndex: target), into: &output)
          filtered.insert(element, at: target)
          includedCount += 1
          target += 1
        case (false, false):
          break
        }
      }

    case .remove(let range):
      if let removed = remove(range) { output.append(removed) }

    case .reset(let array):
      output.append(reset(array, isIncluded: isIncluded))

    case .batch(let operations):
      for operation in operations { append(operation, to: &output, isIncluded: isIncluded) }
    }
  }

  /// Appends a one-element operation, merged into the previous one when they are contiguous of
  /// the same kind.
  @inlinable
  static func merge(
    _ operation: ObservableArrayOperation<Element>,
    into output: inout [ObservableArrayOperation<Element>]
  ) {
    if let last = output.last {
      switch (last, operation) {
      case (.update(let elements, let from), .update(let new, let at)) where from + elements.count == at:
        output[output.count - 1] = .update(elements: elements + new, fromIndex: from)
        return
      case (.insert(let elements, let from), .insert(let new, let at)) where from + elements.count == at:
        output[output.count - 1] = .insert(elements: elements + new, fromIndex: from)
        return
      case (.remove(let range), .remove(let new)) where new.lowerBound == range.lowerBound:
        output[output.count - 1] = .remove(range: range.lowerBound..<range.upperBound + new.count)
        return
      default:
        break
      }
    }
    output.append(operation)
  }
}

/// The mutable home of one observation's ``FilterElementsState``.
/// - Note: not thread-safe; only the observation's serialized deliveries touch it.
@usableFromInline
final class FilterElementsBox<Element> {
  // Unchecked: only the observation's serialized deliveries touch it (no dynamic exclusivity check
  // per event).
  @exclusivity(unchecked) @usableFromInline var state = FilterElementsState<Element>()
  @inlinable init() {}
}
