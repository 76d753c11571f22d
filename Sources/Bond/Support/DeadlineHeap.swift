/// A binary min-heap of values by deadline; values with equal deadlines come out in the order they
/// went in. The timers of ``DedicatedThreadScheduler`` and of BondTesting's `TestScheduler`.
/// Not thread-safe: its owner keeps it on one thread or behind a lock. `package`: BondTesting uses it.
package struct DeadlineHeap<Value> {
  @usableFromInline var entries: [(due: Double, sequence: UInt64, value: Value)] = []
  @usableFromInline var sequence: UInt64 = 0

  package init() {}

  /// Whether it holds nothing.
  package var isEmpty: Bool { entries.isEmpty }

  /// The earliest deadline, if any.
  package var firstDue: Double? { entries.first?.due }

  /// Adds `value`, due at `due`.
  package mutating func insert(_ value: Value, due: Double) {
    sequence &+= 1
    entries.append((due, sequence, value))
    var child = entries.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard precedes(child, parent) else { break }
      entries.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and returns the earliest value and its deadline when it is due at or before `limit`.
  package mutating func popFirst(dueAtOrBefore limit: Double) -> (due: Double, value: Value)? {
    guard let first = entries.first, first.due <= limit else { return nil }
    let last = entries.removeLast()
    if !entries.isEmpty {
      entries[0] = last
      var parent = 0
      while true {
        let left = 2 * parent + 1
        let right = left + 1
        var smallest = parent
        if left < entries.count, precedes(left, smallest) { smallest = left }
        if right < entries.count, precedes(right, smallest) { smallest = right }
        if smallest == parent { break }
        entries.swapAt(parent, smallest)
        parent = smallest
      }
    }
    return (first.due, first.value)
  }

  func precedes(_ a: Int, _ b: Int) -> Bool {
    (entries[a].due, entries[a].sequence) < (entries[b].due, entries[b].sequence)
  }
}
