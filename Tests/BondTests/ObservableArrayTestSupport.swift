import Foundation
@testable import Bond

/// Records an observable array's events and rebuilds a mirror from the operations alone.
final class ArrayEventLog<Element: Equatable>: @unchecked Sendable {
  private let lock = NSLock()
  private var storedOperations: [ObservableArrayOperation<Element>] = []
  private var storedMirror: [Element] = []
  private var storedMismatches = 0

  /// Applies the event's operation to the mirror; counts an event whose `sequence` differs from it.
  func receive(_ event: ObservableArrayEvent<Element>) {
    lock.lock()
    defer { lock.unlock() }
    storedOperations.append(event.operation)
    event.operation.apply(to: &storedMirror)
    if event.sequence != storedMirror { storedMismatches += 1 }
  }

  var operations: [ObservableArrayOperation<Element>] {
    lock.lock()
    defer { lock.unlock() }
    return storedOperations
  }
  var mirror: [Element] {
    lock.lock()
    defer { lock.unlock() }
    return storedMirror
  }
  /// Events whose `sequence` was not the mirror rebuilt from the operations.
  var sequenceMismatches: Int {
    lock.lock()
    defer { lock.unlock() }
    return storedMismatches
  }
  var last: ObservableArrayOperation<Element>? { operations.last }
}

/// A small seeded generator (SplitMix64) for the property tests: a failing seed is printed and
/// replays the same case.
struct SeededRandom: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The seeds the property tests run: `BOND_SEED` alone when set, else 1...count.
func propertySeeds(count: Int) -> [UInt64] {
  if let seed = ProcessInfo.processInfo.environment["BOND_SEED"].flatMap(UInt64.init) { return [seed] }
  return (1...UInt64(count)).map { $0 }
}

/// Applies one random mutation to `array` (any public mutating call; batches nest up to `depth`).
func randomMutation(_ array: ObservableArray<Int>, _ random: inout SeededRandom, depth: Int, next value: inout Int) {
  func fresh(_ count: Int) -> [Int] {
    (0..<count).map { _ in
      value += 1
      return value
    }
  }
  let count = array.count
  switch Int.random(in: 0..<15, using: &random) {
  case 0: array.append(fresh(1)[0])
  case 1: array.append(contentsOf: fresh(Int.random(in: 0...3, using: &random)))
  case 2: array.insert(fresh(1)[0], at: Int.random(in: 0...count, using: &random))
  case 3:
    array.insert(
      contentsOf: fresh(Int.random(in: 0...3, using: &random)),
      at: Int.random(in: 0...count, using: &random)
    )
  case 4 where count > 0: array.remove(at: Int.random(in: 0..<count, using: &random))
  case 5 where count > 0: array.removeLast()
  case 6:
    let lower = Int.random(in: 0...count, using: &random)
    array.removeSubrange(lower..<Int.random(in: lower...count, using: &random))
  case 7 where count > 0: array[Int.random(in: 0..<count, using: &random)] = fresh(1)[0]
  case 8:
    let lower = Int.random(in: 0...count, using: &random)
    let range = lower..<Int.random(in: lower...count, using: &random)
    array.replaceSubrange(range, with: fresh(Int.random(in: 0...3, using: &random)))
  case 9 where Int.random(in: 0..<8, using: &random) == 0: array.removeAll()
  case 10 where Int.random(in: 0..<6, using: &random) == 0: array.array = fresh(Int.random(in: 0...6, using: &random))
  case 11:
    // Keep some old elements, drop some, add some: a diff of a few inserts and removals.
    var target = array.array.filter { _ in Int.random(in: 0..<4, using: &random) != 0 }
    for _ in 0..<Int.random(in: 0...3, using: &random) {
      target.insert(fresh(1)[0], at: Int.random(in: 0...target.count, using: &random))
    }
    array.replace(with: target, performDiff: Int.random(in: 0..<5, using: &random) != 0)
  case 12,
    13 where depth > 0:
    let steps = Int.random(in: 0...5, using: &random)
    var inner = random
    var innerValue = value
    array.performBatchUpdates { array in
      for _ in 0..<steps { randomMutation(array, &inner, depth: depth - 1, next: &innerValue) }
    }
    random = inner
    value = innerValue
  default:
    array.append(fresh(1)[0])
  }
}

/// Applies `changeset` to `old`, taking inserted and updated values from `new`; `nil` when the
/// changeset breaks its own rules (order, ranges, an index both deleted and updated).
func applyChangeset<T>(_ changeset: ObservableArrayChangeset, to old: [T], newValues new: [T]) -> [T]? {
  let deletions = changeset.deletions
  let insertions = changeset.insertions
  let updates = changeset.updates
  guard zip(deletions, deletions.dropFirst()).allSatisfy({ $0 > $1 }),
    zip(insertions, insertions.dropFirst()).allSatisfy({ $0 < $1 }),
    zip(updates, updates.dropFirst()).allSatisfy({ $0 < $1 }),
    deletions.allSatisfy({ old.indices.contains($0) }),
    updates.allSatisfy({ old.indices.contains($0) }),
    Set(deletions).isDisjoint(with: updates)
  else { return nil }
  let deleted = Set(deletions)
  let updated = Set(updates)
  let kept = old.indices.filter { !deleted.contains($0) }
  let newCount = kept.count + insertions.count
  guard insertions.allSatisfy({ $0 >= 0 && $0 < newCount }), newCount == new.count else { return nil }
  let inserted = Set(insertions)
  var result: [T] = []
  var keptIterator = kept.makeIterator()
  for position in 0..<newCount {
    if inserted.contains(position) {
      result.append(new[position])
    } else {
      let oldIndex = keptIterator.next()!
      result.append(updated.contains(oldIndex) ? new[position] : old[oldIndex])
    }
  }
  return result
}
