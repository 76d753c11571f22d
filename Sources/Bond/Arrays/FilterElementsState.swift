/// What ``FilterElements`` knows of the source array: which source elements pass the filter.
/// Translates each source operation into the operation on the filtered array.
///
/// A pure value: one `mutating func` per source operation, no threads (its owner, one observer,
/// is never called concurrently).
@usableFromInline
struct FilterElementsState<Element> {
  /// For each source index, whether that element is in the filtered array.
  @usableFromInline var included: [Bool] = []
  /// How many of `included` are `true` (the filtered array's count).
  @usableFromInline var includedCount = 0

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

  /// Translates a source operation into the filtered array's operation, updating the state.
  /// Returns `nil` when the filtered array does not change. An operation that does not fit the
  /// known source array (a producer without replay, observed mid-stream) resynchronizes from
  /// `sequence` (the source array after the operation) with a `.reset`.
  @inlinable
  mutating func translate(
    _ operation: ObservableArrayOperation<Element>,
    sequence: @autoclosure () -> [Element],
    isIncluded: (Element) -> Bool
  ) -> ObservableArrayOperation<Element>? {
    guard isValid(operation, count: included.count).0 else {
      return apply(.reset(array: sequence()), isIncluded: isIncluded).first
    }
    let operations = apply(operation, isIncluded: isIncluded)
    switch operations.count {
    case 0: return nil
    case 1: return operations[0]
    default: return .batch(operations)
    }
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
      let target = filteredIndex(fromIndex)
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
      if !passing.isEmpty { output.append(.insert(elements: passing, fromIndex: target)) }

    case .update(let elements, let fromIndex):
      var target = filteredIndex(fromIndex)
      for (offset, element) in elements.enumerated() {
        let was = included[fromIndex + offset]
        let now = isIncluded(element)
        included[fromIndex + offset] = now
        switch (was, now) {
        case (true, true):
          Self.merge(.update(elements: [element], fromIndex: target), into: &output)
          target += 1
        case (true, false):
          Self.merge(.remove(range: target..<target + 1), into: &output)
          includedCount -= 1
        case (false, true):
          Self.merge(.insert(elements: [element], fromIndex: target), into: &output)
          includedCount += 1
          target += 1
        case (false, false):
          break
        }
      }

    case .remove(let range):
      let target = filteredIndex(range.lowerBound)
      var removed = 0
      for flag in included[range] where flag { removed += 1 }
      included.removeSubrange(range)
      includedCount -= removed
      if removed > 0 { output.append(.remove(range: target..<target + removed)) }

    case .reset(let array):
      var filtered: [Element] = []
      included = array.map { element in
        let flag = isIncluded(element)
        if flag { filtered.append(element) }
        return flag
      }
      includedCount = filtered.count
      output.append(.reset(array: filtered))

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
  @usableFromInline var state = FilterElementsState<Element>()
  @inlinable init() {}
}
