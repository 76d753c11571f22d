import Testing
@testable import Bond

@Suite struct ObservableArraySectionedTests {
  /// Applies a sectioned changeset to `old`, taking new values from `new`; `nil` when it is invalid.
  func apply(_ changeset: ObservableArraySectionedChangeset, to old: [[Int]], newValues new: [[Int]]) -> [[Int]]? {
    if !changeset.sections.isEmpty {
      guard changeset.rowDeletions.isEmpty, changeset.rowInsertions.isEmpty, changeset.rowUpdates.isEmpty else {
        return nil
      }
      return applyChangeset(changeset.sections, to: old, newValues: new)
    }
    let paths = changeset.rowDeletions + changeset.rowInsertions + changeset.rowUpdates
    guard let section = paths.first?.section else { return old == new ? old : nil }
    guard paths.allSatisfy({ $0.section == section }), old.indices.contains(section), old.count == new.count else {
      return nil
    }
    let rows = ObservableArrayChangeset(
      deletions: changeset.rowDeletions.map(\.row),
      insertions: changeset.rowInsertions.map(\.row),
      updates: changeset.rowUpdates.map(\.row)
    )
    guard let applied = applyChangeset(rows, to: old[section], newValues: new[section]) else { return nil }
    var result = old
    result[section] = applied
    return result
  }

  @Test func sectionAndRowChanges() {
    let captains = ObservableArray(["Archer", "Kirk", "Picard"])
    let firstOfficers = ObservableArray(["T'Pol", "Spock", "Riker"])
    let sections = ObservableArray([captains, firstOfficers])
    let log = Recorder<ObservableArraySectionedChangeset>()
    var latest: [[String]] = []
    let observation = sections.sectionedChanges().observe { event in
      log.add(event.changeset)
      latest = event.sections
    }
    #expect(log.items == [ObservableArraySectionedChangeset(sections: ObservableArrayChangeset(insertions: [0, 1]))])
    firstOfficers.append("Worf")
    #expect(
      log.items.last == ObservableArraySectionedChangeset(rowInsertions: [ObservableArrayIndexPath(section: 1, row: 3)])
    )
    captains.remove(at: 0)
    #expect(
      log.items.last == ObservableArraySectionedChangeset(rowDeletions: [ObservableArrayIndexPath(section: 0, row: 0)])
    )
    sections.insert(ObservableArray(["Sisko"]), at: 1)
    #expect(log.items.last == ObservableArraySectionedChangeset(sections: ObservableArrayChangeset(insertions: [1])))
    #expect(latest == [["Kirk", "Picard"], ["Sisko"], ["T'Pol", "Spock", "Riker", "Worf"]])
    firstOfficers[0] = "Data"
    #expect(
      log.items.last == ObservableArraySectionedChangeset(rowUpdates: [ObservableArrayIndexPath(section: 2, row: 0)])
    )
    sections.remove(at: 0)
    captains.append("Janeway")  // no longer a section: nothing sent
    #expect(log.items.count == 6 && latest == [["Sisko"], ["Data", "Spock", "Riker", "Worf"]])
    #expect(captains.observerCount == 0)  // its observation ended with its section
    observation.dispose()
    #expect(sections.observerCount == 0 && firstOfficers.observerCount == 0)
  }

  @Test func liftGivesOneSection() {
    let names = ObservableArray(["Jim"])
    let log = Recorder<ObservableArraySectionedChangeset>()
    let lifted = names.lift()
    let observation = lifted.sectionedChanges().observe { log.add($0.changeset) }
    names.append("Spock")
    #expect(
      log.items.last == ObservableArraySectionedChangeset(rowInsertions: [ObservableArrayIndexPath(section: 0, row: 1)])
    )
    observation.dispose()
    #expect(names.observerCount == 0 && lifted.observerCount == 0)
  }

  @Test func randomSectionedChangesRebuildTheSections() {
    for seed in propertySeeds(count: 150) {
      var random = SeededRandom(seed: seed)
      var value = 0
      func newSection() -> ObservableArray<Int> {
        ObservableArray(
          (0..<Int.random(in: 0...3, using: &random)).map { _ in
            value += 1
            return value
          }
        )
      }
      let outer = ObservableArray((0..<Int.random(in: 0...3, using: &random)).map { _ in newSection() })
      var mirror: [[Int]] = []
      var failures: [String] = []
      var registeredAfter = -1
      var events = 0
      let observation = outer.sectionedChanges().observe(
        { event in
          events += 1
          if let applied = apply(event.changeset, to: mirror, newValues: event.sections), applied == event.sections {
            mirror = applied
          } else {
            failures.append("\(mirror) -> \(event.sections) with \(event.changeset)")
            mirror = event.sections
          }
        },
        registered: { registeredAfter = events }
      )
      #expect(registeredAfter == 1, "seed \(seed)")
      for _ in 0..<30 {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: outer.insert(newSection(), at: Int.random(in: 0...outer.count, using: &random))
        case 1 where outer.count > 0: outer.remove(at: Int.random(in: 0..<outer.count, using: &random))
        case 2 where outer.count > 0: outer[Int.random(in: 0..<outer.count, using: &random)] = newSection()
        case 3:
          outer.performBatchUpdates { outer in
            outer.append(newSection())
            if outer.count > 1 { outer.remove(at: 0) }
          }
        default:
          if outer.count > 0 {
            randomMutation(outer[Int.random(in: 0..<outer.count, using: &random)], &random, depth: 2, next: &value)
          }
        }
        let actual = outer.array.map(\.array)
        if mirror != actual { failures.append("after a step: \(mirror) != \(actual)") }
      }
      #expect(failures.isEmpty, "seed \(seed): \(failures.first ?? "")")
      observation.dispose()
      #expect(outer.observerCount == 0 && outer.array.allSatisfy { $0.observerCount == 0 }, "seed \(seed)")
    }
  }

  @Test func droppedObservationReleasesTheInnerObservations() {
    let inner = ObservableArray([1])
    do {
      let outer = ObservableArray([inner])
      outer.sectionedChanges().observe { _ in }
      #expect(inner.observerCount == 1)
    }
    // The outer array is gone, and with it the observation's only owner.
    #expect(inner.observerCount == 0)
  }

  /// The outer array's end ends the observation: `registered` came first, then `finished` once,
  /// the disposable reports `isDisposed`, and the inner arrays are no longer observed.
  @Test func theOuterArraysEndEndsTheObservationAndLetsTheInnersGo() {
    let inner = ObservableArray([1])
    let log = Recorder<String>()
    var observation: (any DisposableType)?
    do {
      let outer = ObservableArray([inner])
      observation = outer.sectionedChanges().observe { event in
        log.add("sections \(event.sections)")
      } finished: {
        log.add("finished")
      }
      inner.append(2)
      #expect(log.items == ["sections [[1]]", "sections [[1, 2]]"])
    }
    #expect(log.items == ["sections [[1]]", "sections [[1, 2]]", "finished"])
    #expect(observation?.isDisposed == true)
    #expect(inner.observerCount == 0)
    inner.append(3)
    #expect(log.items.count == 3)
  }
}
