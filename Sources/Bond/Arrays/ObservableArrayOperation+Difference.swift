extension ObservableArrayOperation {
  /// The operation describing `array.replaceSubrange(range, with: elements)`: an `.update` of the
  /// overlapping positions, then an `.insert` of the extra new elements or a `.remove` of the extra
  /// old ones (a `.batch` of the two when both are needed).
  @inlinable
  public static func replacing(_ range: Range<Int>, with elements: [Element]) -> ObservableArrayOperation<Element> {
    let overlap = Swift.min(range.count, elements.count)
    if overlap == 0 {
      if elements.isEmpty { return .remove(range: range) }
      return .insert(elements: elements, fromIndex: range.lowerBound)
    }
    let update = ObservableArrayOperation.update(elements: Array(elements.prefix(overlap)), fromIndex: range.lowerBound)
    if range.count == elements.count { return update }
    let rest = range.lowerBound + overlap
    if elements.count > overlap {
      return .batch([update, .insert(elements: Array(elements.dropFirst(overlap)), fromIndex: rest)])
    }
    return .batch([update, .remove(range: rest..<range.upperBound)])
  }
}

extension ObservableArrayOperation where Element: Equatable {
  /// A `.batch` that turns `old` into `new` with a minimal number of inserted and removed elements
  /// (the standard library's `difference(from:)`): the removals first, from the highest index
  /// down, then the insertions from the lowest index up; contiguous runs become one operation.
  ///
  /// ```swift
  /// ObservableArrayOperation.difference(from: ["Jim", "Spock"], to: ["Jim", "Bones", "Spock"])
  /// // .batch([.insert(elements: ["Bones"], fromIndex: 1)])
  /// ```
  public static func difference(from old: [Element], to new: [Element]) -> ObservableArrayOperation<Element> {
    let difference = new.difference(from: old)
    var operations: [ObservableArrayOperation<Element>] = []
    // Removals, highest offset first, so each range is valid in the array left by the previous.
    var removedOffsets: [Int] = []
    var insertions: [(offset: Int, element: Element)] = []
    for change in difference {
      switch change {
      case .remove(let offset, _, _): removedOffsets.append(offset)
      case .insert(let offset, let element, _): insertions.append((offset, element))
      }
    }
    removedOffsets.sort(by: >)
    var index = 0
    while index < removedOffsets.count {
      let upper = removedOffsets[index] + 1
      var lower = removedOffsets[index]
      index += 1
      while index < removedOffsets.count, removedOffsets[index] == lower - 1 {
        lower -= 1
        index += 1
      }
      operations.append(.remove(range: lower..<upper))
    }
    // Insertions, lowest offset first: each offset is final once the ones before it are inserted.
    insertions.sort { $0.offset < $1.offset }
    index = 0
    while index < insertions.count {
      let start = insertions[index].offset
      var elements = [insertions[index].element]
      index += 1
      while index < insertions.count, insertions[index].offset == start + elements.count {
        elements.append(insertions[index].element)
        index += 1
      }
      operations.append(.insert(elements: elements, fromIndex: start))
    }
    return .batch(operations)
  }
}
