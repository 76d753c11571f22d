import Testing
@testable import Bond

/// Random mutation sequences (nested batches, diffs, resets included), seeded: a failure names its
/// seed, and `BOND_SEED=<seed> swift test --filter ObservableArrayPropertyTests` replays it.
@Suite struct ObservableArrayPropertyTests {
  @Test func mirrorFromEventsEqualsTheArrayAndChangesetsRebuildEachStep() {
    for seed in propertySeeds(count: 300) {
      var random = SeededRandom(seed: seed)
      var value = 0
      let initial = (0..<Int.random(in: 0...6, using: &random)).map { _ in
        value += 1
        return value
      }
      let array = ObservableArray(initial)
      let log = ArrayEventLog<Int>()
      var previous: [Int] = []
      var changesetFailures: [String] = []
      let observation = array.observe { event in
        log.receive(event)
        let new = event.sequence
        let changeset = event.changeset(oldCount: previous.count)
        if applyChangeset(changeset, to: previous, newValues: new) != new {
          changesetFailures.append("\(previous) --\(event.operation)--> \(new) gave \(changeset)")
        }
        previous = new
      }
      for _ in 0..<30 { randomMutation(array, &random, depth: 3, next: &value) }
      #expect(log.mirror == array.array, "seed \(seed)")
      #expect(log.sequenceMismatches == 0, "seed \(seed)")
      #expect(changesetFailures.isEmpty, "seed \(seed): \(changesetFailures.first ?? "")")
      observation.dispose()
      #expect(array.observerCount == 0)
    }
  }

  @Test func changesetOfRandomBatchesOnPlainArrays() {
    // Operations built directly (not through ObservableArray), deeper nesting.
    func randomOperation(_ count: inout Int, _ random: inout SeededRandom, depth: Int) -> ObservableArrayOperation<Int>
    {
      switch Int.random(in: 0..<(depth > 0 ? 6 : 5), using: &random) {
      case 0:
        let elements = (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 100..<200, using: &random)
        }
        let index = Int.random(in: 0...count, using: &random)
        count += elements.count
        return .insert(elements: elements, fromIndex: index)
      case 1:
        let lower = Int.random(in: 0...count, using: &random)
        let upper = Int.random(in: lower...count, using: &random)
        return .update(
          elements: (lower..<upper).map { _ in Int.random(in: 200..<300, using: &random) },
          fromIndex: lower
        )
      case 2, 3:
        let lower = Int.random(in: 0...count, using: &random)
        let upper = Int.random(in: lower...count, using: &random)
        count -= upper - lower
        return .remove(range: lower..<upper)
      case 4:
        guard Int.random(in: 0..<5, using: &random) == 0 else { return .batch([]) }
        count = Int.random(in: 0...5, using: &random)
        return .reset(array: (0..<count).map { _ in Int.random(in: 300..<400, using: &random) })
      default:
        return .batch(
          (0..<Int.random(in: 0...5, using: &random)).map { _ in randomOperation(&count, &random, depth: depth - 1) }
        )
      }
    }
    for seed in propertySeeds(count: 2_000) {
      var random = SeededRandom(seed: seed)
      let old = (0..<Int.random(in: 0...10, using: &random)).map { $0 }
      var count = old.count
      let operation = randomOperation(&count, &random, depth: 4)
      var new = old
      operation.apply(to: &new)
      #expect(new.count == count && operation.count(after: old.count) == count, "seed \(seed)")
      let changeset = operation.changeset(oldCount: old.count)
      #expect(applyChangeset(changeset, to: old, newValues: new) == new, "seed \(seed): \(operation) gave \(changeset)")
    }
  }

  @Test func changesetExamples() {
    #expect(
      ObservableArrayOperation<Int>.insert(elements: [1, 2], fromIndex: 1).changeset(oldCount: 3)
        == ObservableArrayChangeset(insertions: [1, 2])
    )
    #expect(
      ObservableArrayOperation<Int>.remove(range: 1..<3).changeset(oldCount: 3)
        == ObservableArrayChangeset(deletions: [2, 1])
    )
    #expect(
      ObservableArrayOperation<Int>.update(elements: [7], fromIndex: 2).changeset(oldCount: 3)
        == ObservableArrayChangeset(updates: [2])
    )
    #expect(
      ObservableArrayOperation<Int>.reset(array: [1]).changeset(oldCount: 2)
        == ObservableArrayChangeset(deletions: [1, 0], insertions: [0])
    )
    // Insert at 0, then update the old element 0 (now at 1), then remove the inserted one.
    let batch = ObservableArrayOperation<Int>.batch([
      .insert(elements: [9], fromIndex: 0), .update(elements: [8], fromIndex: 1), .remove(range: 0..<1),
      .insert(elements: [5, 6], fromIndex: 2), .remove(range: 1..<2),
    ])
    #expect(batch.changeset(oldCount: 3) == ObservableArrayChangeset(deletions: [1], insertions: [1, 2], updates: [0]))
    #expect(ObservableArrayOperation<Int>.batch([]).changeset(oldCount: 4).isEmpty)
  }

  @Test func mapElementsMirrorsTheMappedArray() {
    for seed in propertySeeds(count: 150) {
      var random = SeededRandom(seed: seed)
      var value = 0
      let array = ObservableArray([1, 2, 3])
      let log = ArrayEventLog<String>()
      let observation = array.mapElements { "#\($0)" }.observe { log.receive($0) }
      for _ in 0..<25 { randomMutation(array, &random, depth: 2, next: &value) }
      #expect(log.mirror == array.array.map { "#\($0)" }, "seed \(seed)")
      #expect(log.sequenceMismatches == 0, "seed \(seed)")
      observation.dispose()
    }
  }

  @Test func filterElementsMirrorsTheFilteredArray() {
    for seed in propertySeeds(count: 300) {
      var random = SeededRandom(seed: seed)
      var value = 0
      let array = ObservableArray((1...Int.random(in: 1...8, using: &random)).map { $0 })
      let log = ArrayEventLog<Int>()
      var resets = 0
      var emptyEvents = 0
      let isIncluded: (Int) -> Bool = { $0 % 3 != 0 }
      let observation = array.filterElements(isIncluded).observe { event in
        log.receive(event)
        if case .reset = event.operation { resets += 1 }
        if event.operation.isEmpty { emptyEvents += 1 }
        if log.mirror != array.array.filter(isIncluded) {
          Issue.record("seed \(seed): mirror diverged at \(event.operation)")
        }
      }
      var sourceResets = 1
      let counter = array.observe { if case .reset = $0.operation { sourceResets += 1 } }
      // Updates that move elements in and out of the filtered array.
      for _ in 0..<25 {
        if array.count > 0, Int.random(in: 0..<3, using: &random) == 0 {
          let index = Int.random(in: 0..<array.count, using: &random)
          array[index] = array[index] + 1
        } else {
          randomMutation(array, &random, depth: 2, next: &value)
        }
      }
      #expect(log.mirror == array.array.filter(isIncluded), "seed \(seed)")
      #expect(log.sequenceMismatches == 0, "seed \(seed)")
      #expect(emptyEvents == 0, "seed \(seed): an event that changes nothing was sent")
      observation.dispose()
      counter.dispose()
    }
  }

  @Test func filterElementsTranslatesUpdatesIntoInsertsAndRemovals() {
    let array = ObservableArray([1, 2, 3, 4])  // odd ones pass: [1, 3]
    let log = ArrayEventLog<Int>()
    let observation = array.filterElements { $0 % 2 == 1 }.observe { log.receive($0) }
    array[1] = 5  // 2 -> 5 enters: insert at 1
    array[0] = 7  // 1 -> 7 stays: update at 0
    array[2] = 6  // 3 -> 6 leaves: remove at 2
    array.replaceSubrange(0..<4, with: [8, 9, 11, 13])  // [7,5] -> [9,11,13]
    array.append(2)  // filtered out: nothing sent
    #expect(
      log.operations == [
        .reset(array: [1, 3]),
        .insert(elements: [5], fromIndex: 1),
        .update(elements: [7], fromIndex: 0),
        .remove(range: 2..<3),
        .batch([
          .remove(range: 0..<1), .update(elements: [9], fromIndex: 0), .insert(elements: [11, 13], fromIndex: 1),
        ]),
      ]
    )
    #expect(log.mirror == [9, 11, 13])
    observation.dispose()
  }

  @Test func filterElementsResynchronizesOnAnUnknownArray() {
    // A producer of array events without replay, observed mid-stream.
    let producer = EventProducer<ObservableArrayEvent<Int>>()
    let log = ArrayEventLog<Int>()
    let observation = producer.filterElements { $0 > 1 }.observe { log.receive($0) }
    producer.next(ObservableArrayEvent(sequence: [1, 2, 3], operation: .insert(elements: [3], fromIndex: 2)))
    producer.next(ObservableArrayEvent(sequence: [1, 2, 3, 4], operation: .insert(elements: [4], fromIndex: 3)))
    #expect(log.operations == [.reset(array: [2, 3]), .insert(elements: [4], fromIndex: 2)])
    observation.dispose()
  }

  @Test func mapElementsIsLazyAboutTheWholeArray() {
    let array = ObservableArray(Array(0..<1_000))
    let calls = Recorder<Int>()
    var sequences: [ObservableArrayEvent<Int>] = []
    let observation = array.mapElements { value -> Int in
      calls.add(value)
      return value * 2
    }.observe { sequences.append($0) }
    #expect(calls.items.count == 1_000)  // the replay is a reset: its array is mapped
    array.append(1_000)
    #expect(calls.items.count == 1_001)  // only the inserted element, not the whole array
    #expect(sequences.last?.operation == .insert(elements: [2_000], fromIndex: 1_000))
    #expect(sequences.last?.sequence.count == 1_001)  // materialized on access
    #expect(calls.items.count == 2_002)
    _ = sequences.last?.sequence  // and kept
    #expect(calls.items.count == 2_002)
    observation.dispose()
  }

  @Test func elementViewsForwardRegistered() {
    let array = ObservableArray([1, 2])
    let log = Recorder<String>()
    let mapped = array.mapElements { $0 * 10 }.observe(
      { log.add("map \($0.sequence)") },
      registered: { log.add("map registered") }
    )
    let filtered = array.filterElements { $0 > 1 }.observe(
      { log.add("filter \($0.sequence)") },
      registered: { log.add("filter registered") }
    )
    array.append(3)
    #expect(
      log.items == [
        "map [10, 20]", "map registered", "filter [2]", "filter registered", "map [10, 20, 30]", "filter [2, 3]",
      ]
    )
    #expect(array.mapElements { $0 }.replayLength == 1 && array.filterElements { _ in true }.replayLength == 1)
    mapped.dispose()
    filtered.dispose()
    #expect(array.observerCount == 0)
  }
}
