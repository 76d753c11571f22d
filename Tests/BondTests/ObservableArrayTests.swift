import Testing
@testable import Bond

@Suite struct ObservableArrayTests {
  /// Runs `mutation` on an observed array holding `initial`; checks the single event it sends,
  /// the resulting array, and the mirror rebuilt from the events only.
  func check(
    _ initial: [String],
    _ expected: [String],
    _ operation: ObservableArrayOperation<String>,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ mutation: (ObservableArray<String>) -> Void
  ) {
    let array = ObservableArray(initial)
    let log = ArrayEventLog<String>()
    let observation = array.observe { log.receive($0) }
    mutation(array)
    #expect(log.operations == [.reset(array: initial), operation], sourceLocation: sourceLocation)
    #expect(array.array == expected, sourceLocation: sourceLocation)
    #expect(log.mirror == expected, sourceLocation: sourceLocation)
    #expect(log.sequenceMismatches == 0, sourceLocation: sourceLocation)
    observation.dispose()
    #expect(array.observerCount == 0, sourceLocation: sourceLocation)
  }

  @Test func newObserverReceivesAResetOfTheCurrentArray() {
    let array = ObservableArray([1, 2])
    array.append(3)
    let log = ArrayEventLog<Int>()
    let observation = array.observe { log.receive($0) }
    #expect(log.operations == [.reset(array: [1, 2, 3])])
    #expect(array.replayLength == 1 && array.observerCount == 1)
    observation.dispose()
    array.append(4)
    #expect(log.operations.count == 1 && array.observerCount == 0)
  }

  @Test func registeredFiresRightAfterTheReplay() {
    let array = ObservableArray(["a"])
    let log = Recorder<String>()
    let observation = array.observe({ log.add("\($0.operation)") }, registered: { log.add("registered") })
    array.append("b")
    #expect(log.items == ["reset(array: [\"a\"])", "registered", "insert(elements: [\"b\"], fromIndex: 1)"])
    observation.dispose()
  }

  @Test func reads() {
    let array = ObservableArray(["a", "b", "c"])
    #expect(array.count == 3 && !array.isEmpty && array.first == "a" && array.last == "c" && array[1] == "b")
    let empty = ObservableArray<Int>()
    #expect(empty.count == 0 && empty.isEmpty && empty.first == nil && empty.last == nil && empty.array == [])
  }

  @Test func eachOperationSendsOneEvent() {
    check(["a"], ["a", "b"], .insert(elements: ["b"], fromIndex: 1)) { $0.append("b") }
    check(["a"], ["a", "b", "c"], .insert(elements: ["b", "c"], fromIndex: 1)) { $0.append(contentsOf: ["b", "c"]) }
    check(["a", "c"], ["a", "b", "c"], .insert(elements: ["b"], fromIndex: 1)) { $0.insert("b", at: 1) }
    check(["a"], ["x", "y", "a"], .insert(elements: ["x", "y"], fromIndex: 0)) {
      $0.insert(contentsOf: ["x", "y"], at: 0)
    }
    check(["a", "b", "c"], ["a", "c"], .remove(range: 1..<2)) { #expect($0.remove(at: 1) == "b") }
    check(["a", "b"], ["a"], .remove(range: 1..<2)) { #expect($0.removeLast() == "b") }
    check(["a", "b", "c", "d"], ["a", "d"], .remove(range: 1..<3)) { $0.removeSubrange(1..<3) }
    check(["a", "b"], [], .remove(range: 0..<2)) { $0.removeAll() }
    check(["a", "b"], ["a", "x"], .update(elements: ["x"], fromIndex: 1)) { $0[1] = "x" }
    check(["a", "b"], ["x"], .reset(array: ["x"])) { $0.array = ["x"] }
  }

  @Test func replaceSubrangeSendsOneEvent() {
    check(["a", "b", "c"], ["a", "x", "c"], .update(elements: ["x"], fromIndex: 1)) {
      $0.replaceSubrange(1..<2, with: ["x"])
    }
    check(
      ["a", "b", "c"],
      ["a", "x", "y", "z", "c"],
      .batch([.update(elements: ["x"], fromIndex: 1), .insert(elements: ["y", "z"], fromIndex: 2)])
    ) {
      $0.replaceSubrange(1..<2, with: ["x", "y", "z"])
    }
    check(
      ["a", "b", "c", "d"],
      ["a", "x", "d"],
      .batch([.update(elements: ["x"], fromIndex: 1), .remove(range: 2..<3)])
    ) {
      $0.replaceSubrange(1..<3, with: ["x"])
    }
    check(["a", "b"], ["a", "x", "b"], .insert(elements: ["x"], fromIndex: 1)) {
      $0.replaceSubrange(1..<1, with: ["x"])
    }
    check(["a", "b", "c"], ["a"], .remove(range: 1..<3)) { $0.replaceSubrange(1..<3, with: []) }
  }

  @Test func emptyMutationsStillSendTheirEvent() {
    check(["a"], ["a"], .insert(elements: [], fromIndex: 1)) { $0.append(contentsOf: []) }
    check(["a"], ["a"], .remove(range: 1..<1)) { $0.removeSubrange(1..<1) }
    check([], [], .remove(range: 0..<0)) { $0.removeAll() }
  }

  @Test func batchUpdatesSendOneBatchEvent() {
    check(
      ["Jim", "Spock"],
      ["Spock", "Bones"],
      .batch([.insert(elements: ["Bones"], fromIndex: 2), .remove(range: 0..<1)])
    ) { array in
      array.performBatchUpdates { array in
        array.append("Bones")
        #expect(array.count == 3)  // the batch's own thread sees its changes at once
        array.remove(at: 0)
      }
    }
  }

  @Test func nestedBatchJoinsTheOuterOne() {
    check(
      ["a"],
      ["x", "a", "b", "c"],
      .batch([
        .insert(elements: ["b"], fromIndex: 1), .insert(elements: ["c"], fromIndex: 2),
        .insert(elements: ["x"], fromIndex: 0),
      ])
    ) { array in
      array.performBatchUpdates { array in
        array.append("b")
        array.performBatchUpdates { array in
          array.append("c")
          array.performBatchUpdates { $0.insert("x", at: 0) }
        }
      }
    }
  }

  @Test func emptyBatchSendsAnEmptyBatch() {
    check(["a"], ["a"], .batch([])) { $0.performBatchUpdates { _ in } }
  }

  @Test func replaceWithDiffSendsAMinimalBatch() {
    check(
      ["Jim", "Spock", "Kirk"],
      ["Jim", "Bones", "Spock", "Kirk"],
      .batch([.insert(elements: ["Bones"], fromIndex: 1)])
    ) {
      $0.replace(with: ["Jim", "Bones", "Spock", "Kirk"], performDiff: true)
    }
    check(
      ["a", "b", "c", "d", "e"],
      ["a", "x", "y", "e", "z"],
      .batch([
        .remove(range: 1..<4), .insert(elements: ["x", "y"], fromIndex: 1), .insert(elements: ["z"], fromIndex: 4),
      ])
    ) {
      $0.replace(with: ["a", "x", "y", "e", "z"], performDiff: true)
    }
    check(["a"], ["b"], .reset(array: ["b"])) { $0.replace(with: ["b"], performDiff: false) }
  }

  @Test func replaceInsideABatchJoinsIt() {
    check(
      ["a", "b"],
      ["b", "c"],
      .batch([.insert(elements: ["c"], fromIndex: 2), .remove(range: 0..<1)])
    ) { array in
      array.performBatchUpdates { array in
        array.append("c")
        array.replace(with: ["b", "c"], performDiff: true)
      }
    }
  }

  @Test func diffOfRandomArraysRebuildsTheTarget() {
    for seed in propertySeeds(count: 300) {
      var random = SeededRandom(seed: seed)
      let old = (0..<Int.random(in: 0...12, using: &random)).map { _ in Int.random(in: 0..<6, using: &random) }
      let new = (0..<Int.random(in: 0...12, using: &random)).map { _ in Int.random(in: 0..<6, using: &random) }
      let operation = ObservableArrayOperation.difference(from: old, to: new)
      var rebuilt = old
      operation.apply(to: &rebuilt)
      #expect(rebuilt == new, "seed \(seed): \(old) -> \(new) via \(operation)")
      guard case .batch(let operations) = operation else {
        Issue.record("seed \(seed): not a batch")
        continue
      }
      let changed = operations.reduce(0) { total, operation in
        switch operation {
        case .insert(let elements, _): return total + elements.count
        case .remove(let range): return total + range.count
        default: return total + 1_000
        }
      }
      #expect(changed == new.difference(from: old).count, "seed \(seed): not minimal")
    }
  }

  @Test func bondV4ReadmeExample() {
    // The "Observable Array" section of the Bond v4 README, in today's spelling.
    let names = ObservableArray(["Jim", "Spock"])
    let printed = Recorder<String>()
    let observation = names.observe { event in
      printed.add("Array is now: \(event.sequence)")
      switch event.operation {
      case .insert(let elements, let fromIndex): printed.add("Inserted \(elements) from index \(fromIndex)")
      case .remove(let range): printed.add("Removed elements in range \(range)")
      case .update(let elements, let fromIndex): printed.add("Updated \(elements) from index \(fromIndex)")
      case .reset(let array): printed.add("Array was reset to \(array)")
      case .batch(let operations): printed.add("Operations \(operations) were perform on the array")
      }
    }
    names.append("Scotty")
    names[0] = "Uhura"
    names.remove(at: 0)
    names.performBatchUpdates { names in
      names.insert("Jim", at: 0)
      names.removeLast()
    }
    #expect(
      printed.items == [
        "Array is now: [\"Jim\", \"Spock\"]",
        "Array was reset to [\"Jim\", \"Spock\"]",
        "Array is now: [\"Jim\", \"Spock\", \"Scotty\"]",
        "Inserted [\"Scotty\"] from index 2",
        "Array is now: [\"Uhura\", \"Spock\", \"Scotty\"]",
        "Updated [\"Uhura\"] from index 0",
        "Array is now: [\"Spock\", \"Scotty\"]",
        "Removed elements in range 0..<1",
        "Array is now: [\"Jim\", \"Spock\"]",
        "Operations [Bond.ObservableArrayOperation<Swift.String>.insert(elements: [\"Jim\"], fromIndex: 0), "
          + "Bond.ObservableArrayOperation<Swift.String>.remove(range: Range(2..<3))] were perform on the array",
      ]
    )
    observation.dispose()
  }

  @Test func contractUsageBlock() {
    // The "Observable arrays" block of shared/contract/Usage.swift.
    let names = ObservableArray(["Jim", "Spock"])
    let log = Recorder<String>()
    let main = names.observe { event in
      switch event.operation {
      case .insert(let elements, let fromIndex): log.add("insert \(elements) \(fromIndex)")
      case .update(let elements, let fromIndex): log.add("update \(elements) \(fromIndex)")
      case .remove(let range): log.add("remove \(range)")
      case .reset(let array): log.add("reset \(array)")
      case .batch(let operations): log.add("batch \(operations.count)")
      }
    }
    names.append("Scotty")
    names[0] = "Uhura"
    names.remove(at: 0)
    names.performBatchUpdates { names in
      names.insert("Jim", at: 0)
      names.removeLast()
    }
    #expect(names.array == ["Jim", "Spock"] && names.count == 2 && names.first == "Jim")
    #expect(
      log.items == [
        "reset [\"Jim\", \"Spock\"]", "insert [\"Scotty\"] 2", "update [\"Uhura\"] 0",
        "remove 0..<1", "batch 2",
      ]
    )
    names.append(contentsOf: ["Kirk"])
    names.insert(contentsOf: ["Sulu"], at: 0)
    names.replaceSubrange(0..<1, with: ["Chekov"])
    names.removeSubrange(0..<1)
    #expect(names.array == ["Jim", "Spock", "Kirk"])
    names.replace(with: ["Jim", "Bones", "Spock", "Kirk"], performDiff: true)
    #expect(names.array == ["Jim", "Bones", "Spock", "Kirk"] && log.items.last == "batch 1")
    let sections = names.lift()
    #expect(sections.count == 1 && sections[0].array == names.array)
    let upper = Recorder<[String]>()
    let short = Recorder<[String]>()
    let mapped = names.mapElements { $0.uppercased() }.observe { upper.add(Array($0.sequence)) }
    let filtered = names.filterElements { $0.count <= 4 }.observe { short.add(Array($0.sequence)) }
    names.removeAll()
    #expect(upper.items.first == ["JIM", "BONES", "SPOCK", "KIRK"] && upper.items.last == [])
    #expect(short.items.first == ["Jim", "Kirk"] && short.items.last == [])
    main.dispose()
    mapped.dispose()
    filtered.dispose()
    #expect(names.observerCount == 0)
  }

  @Test func mutationFromInsideAnObserverIsDeliveredAfterTheCurrentEvent() {
    let array = ObservableArray<Int>()
    let log = Recorder<String>()
    var depth = 0
    var maxDepth = 0
    let first = array.observe { event in
      depth += 1
      maxDepth = max(maxDepth, depth)
      log.add("a \(event.sequence)")
      if case .insert(let elements, _) = event.operation, elements == [1] { array.append(2) }
      depth -= 1
    }
    let mirror = ArrayEventLog<Int>()
    let second = array.observe {
      log.add("b \($0.sequence)")
      mirror.receive($0)
    }
    array.append(1)
    #expect(log.items == ["a []", "b []", "a [1]", "b [1]", "a [1, 2]", "b [1, 2]"])
    #expect(maxDepth == 1 && mirror.mirror == [1, 2] && array.array == [1, 2])
    first.dispose()
    second.dispose()
  }

  @Test func observeFromInsideAnObserverGetsAConsistentReplay() {
    let array = ObservableArray([0])
    let late = ArrayEventLog<Int>()
    var lateObservation: (any DisposableType)?
    let first = array.observe { event in
      if case .insert = event.operation, lateObservation == nil {
        array.append(2)  // queued before the late observer's replay
        lateObservation = array.observe { late.receive($0) }
        array.append(3)  // queued after it
      }
    }
    array.append(1)
    #expect(late.operations == [.reset(array: [0, 1, 2]), .insert(elements: [3], fromIndex: 3)])
    #expect(late.mirror == array.array && late.sequenceMismatches == 0)
    first.dispose()
    lateObservation?.dispose()
  }

  @Test func disposeFromInsideTheObserverStopsDelivery() {
    let array = ObservableArray<Int>()
    let log = Recorder<Int>()
    var observation: (any DisposableType)?
    observation = array.observe { event in
      log.add(event.sequence.count)
      if event.sequence.count == 1 { observation?.dispose() }
    }
    array.append(1)
    array.append(2)
    #expect(log.items == [0, 1] && array.observerCount == 0)
  }

  @Test func liftWrapsTheArray() {
    let captains = ObservableArray(["Archer", "Kirk"])
    let sections = captains.lift()
    #expect(sections.count == 1 && sections[0] === captains)
  }

  @Test func deallocatedArrayReleasesItsObservers() {
    weak var weakTracked: Tracked?
    weak var weakArray: ObservableArray<Int>?
    var observation: (any DisposableType)?
    do {
      let tracked = Tracked()
      weakTracked = tracked
      let array = ObservableArray([1])
      weakArray = array
      observation = array.observe { _ in _ = tracked }
      array.append(2)
    }
    #expect(weakArray == nil)
    #expect(weakTracked == nil)
    observation?.dispose()  // harmless after the array is gone
  }

  @Test func disposeReleasesTheObserver() {
    let array = ObservableArray([1])
    weak var weakTracked: Tracked?
    let observation: any DisposableType
    do {
      let tracked = Tracked()
      weakTracked = tracked
      observation = array.observe { _ in _ = tracked }
    }
    #expect(weakTracked != nil)
    observation.dispose()
    #expect(weakTracked == nil && array.observerCount == 0)
  }

  @Test func eventsAreSendableValues() {
    let event = ObservableArrayEvent(sequence: [1, 2], operation: .insert(elements: [2], fromIndex: 1))
    let sendable: any Sendable = event
    #expect(sendable is ObservableArrayEvent<Int>)
    #expect(event.sequence == [1, 2] && event.operation == .insert(elements: [2], fromIndex: 1))
    let deferred = ObservableArrayEvent(operation: .remove(range: 0..<1), deferredSequence: { [9] })
    #expect(deferred.sequence == [9] && deferred.sequence == [9])
  }

  @Test func operationCountAndIsEmpty() {
    let operation = ObservableArrayOperation<Int>.batch([
      .insert(elements: [1, 2], fromIndex: 0), .remove(range: 0..<1),
    ])
    #expect(operation.count(after: 3) == 4)
    #expect(!operation.isEmpty && ObservableArrayOperation<Int>.batch([.remove(range: 1..<1)]).isEmpty)
  }
}
