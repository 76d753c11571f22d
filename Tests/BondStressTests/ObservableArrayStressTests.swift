import Foundation
import Synchronization
import Testing
@testable import Bond

/// ObservableArray under real races: atomic mutations, lossless ordered delivery, isolated batches.
/// Run under `swift test --sanitize=thread`.
@Suite struct ObservableArrayStressTests {
  struct Stamp: Sendable, Equatable {
    let thread: Int
    let sequence: Int
  }

  /// Rebuilds an array from events only; touched only by deliveries (which never overlap).
  final class Mirror<Element: Equatable>: @unchecked Sendable {
    var array: [Element] = []
    var events = 0
    var mismatches = 0
    let overlap = OverlapDetector()
    func receive(_ event: ObservableArrayEvent<Element>) {
      overlap.enter()
      events += 1
      event.operation.apply(to: &array)
      // Full comparison every 64 events (O(n) each), counts always.
      let sequence = event.sequence
      if sequence.count != array.count || (events % 64 == 0 && sequence != array) { mismatches += 1 }
      overlap.leave()
    }
  }

  @Test func concurrentAppendsFromFourThreadsLoseNothingAndKeepPerThreadOrder() async {
    await withWatchdog("concurrentAppendsFromFourThreadsLoseNothingAndKeepPerThreadOrder", seconds: 120) {
      let threads = 4
      let perThread = 3_000 * stressScale
      let array = ObservableArray<Stamp>()
      let first = Mirror<Stamp>()
      let second = Mirror<Stamp>()
      let a = array.observe { first.receive($0) }
      let b = array.observe { second.receive($0) }
      runTogether(threads: threads) { thread in
        for sequence in 0..<perThread { array.append(Stamp(thread: thread, sequence: sequence)) }
      }
      await array.flush()
      a.dispose()
      b.dispose()
      let final = array.array
      #expect(final.count == threads * perThread)
      #expect(first.array == final && second.array == final, "mirrors rebuilt from events equal the array")
      #expect(first.events == threads * perThread + 1 && second.events == threads * perThread + 1)
      #expect(first.mismatches == 0 && second.mismatches == 0)
      #expect(first.overlap.count == 0 && second.overlap.count == 0)
      for thread in 0..<threads {
        #expect(final.filter { $0.thread == thread }.map(\.sequence) == Array(0..<perThread))
      }
      #expect(array.observerCount == 0)
    }
  }

  @Test func mixedMutationsBatchesAndLateObserversStayConsistent() async {
    await withWatchdog("mixedMutationsBatchesAndLateObserversStayConsistent", seconds: 120) {
      let threads = 4
      let steps = 1_500 * stressScale
      let array = ObservableArray<Int>(Array(0..<10))
      let mirror = Mirror<Int>()
      let main = array.observe { mirror.receive($0) }
      let late = LockedState<[(mirror: Mirror<Int>, observation: any DisposableType)]>([])
      runTogether(threads: threads) { thread in
        var random = SystemRandomNumberGenerator()
        for step in 0..<steps {
          let value = thread * 1_000_000 + step
          switch Int.random(in: 0..<10, using: &random) {
          case 0, 1, 2: array.append(value)
          case 3: array.insert(value, at: 0)
          case 4:
            array.performBatchUpdates { array in
              if !array.isEmpty { array.removeLast() }
              array.append(value)
              array.performBatchUpdates { array in if array.count > 1 { array[0] = value } }
            }
          case 5:
            array.performBatchUpdates { array in if array.count > 20 { array.removeSubrange(0..<5) } }
          case 6:
            array.performBatchUpdates { array in
              array.replace(with: array.array.filter { $0 % 3 != 0 } + [value], performDiff: true)
            }
          case 7 where step % 50 == 0:
            let observer = Mirror<Int>()
            let observation = array.observe { observer.receive($0) }
            late.withLock { $0.append((observer, observation)) }
          case 8 where step % 97 == 0:
            let dropped = late.withLock { $0.popLast() }
            dropped?.observation.dispose()  // its mirror is dropped from the check below
          default:
            array.append(value)
          }
        }
      }
      await array.flush()
      main.dispose()
      let final = array.array
      #expect(mirror.array == final && mirror.mismatches == 0 && mirror.overlap.count == 0)
      for (observer, observation) in late.withLock({ $0 }) {
        observation.dispose()
        #expect(observer.array == final && observer.mismatches == 0 && observer.overlap.count == 0)
      }
      #expect(array.observerCount == 0)
    }
  }

  @Test func otherThreadsNeverSeeAHalfDoneBatch() async {
    await withWatchdog("otherThreadsNeverSeeAHalfDoneBatch", seconds: 120) {
      // Every batch and every plain mutation adds or removes pairs: an odd count would be a torn read.
      let steps = 2_000 * stressScale
      let array = ObservableArray<Int>()
      let oddReads = Counter()
      let mirror = Mirror<Int>()
      let observation = array.observe { mirror.receive($0) }
      runTogether(threads: 4) { thread in
        for step in 0..<steps {
          switch thread {
          case 0:
            array.performBatchUpdates { array in
              array.append(step)
              array.append(-step)
              if array.count > 40 { array.removeSubrange(0..<2) }
            }
          case 1:
            array.append(contentsOf: [step, -step])
          case 2:
            if array.count % 2 != 0 { oddReads.increment() }
            if array.array.count % 2 != 0 { oddReads.increment() }
          default:
            array.performBatchUpdates { array in
              if array.count >= 2 {
                array.removeLast()
                array.removeLast()
              }
            }
          }
        }
      }
      await array.flush()
      observation.dispose()
      #expect(oddReads.count == 0)
      #expect(mirror.array == array.array && mirror.mismatches == 0 && mirror.overlap.count == 0)
    }
  }

  @Test func mutationsFromInsideObserversOnManyThreads() async {
    await withWatchdog("mutationsFromInsideObserversOnManyThreads", seconds: 120) {
      // An observer that answers some events with a mutation of its own (reentrant sends).
      let perThread = 2_000 * stressScale
      let array = ObservableArray<Int>()
      let mirror = Mirror<Int>()
      let echo = array.observe { event in
        if case .insert(let elements, _) = event.operation, let value = elements.first, value > 0, value % 10 == 0 {
          array.append(-value)
        }
      }
      let observation = array.observe { mirror.receive($0) }
      runTogether(threads: 3) { thread in
        for value in 1...perThread { array.append(value + thread * 1_000_000) }
      }
      // Each delivery before the first flush may append behind it: flush twice.
      await array.flush()
      await array.flush()
      echo.dispose()
      observation.dispose()
      let final = array.array
      #expect(final.count == 3 * perThread + 3 * (perThread / 10))
      #expect(mirror.array == final && mirror.mismatches == 0 && mirror.overlap.count == 0)
    }
  }

  @Test func filterElementsViewsStayEqualToTheFilteredArrayUnderConcurrentMutations() async {
    await withWatchdog("filterElementsViewsStayEqualToTheFilteredArrayUnderConcurrentMutations", seconds: 120) {
      // Each view keeps the filtered array it shares with its events: events built on one thread while
      // another mutates, a view observed late, an observer keeping every event's sequence.
      let steps = 2_000 * stressScale
      let isIncluded: @Sendable (Int) -> Bool = { $0 % 3 != 0 }
      let array = ObservableArray<Int>(Array(0..<10))
      let mirror = Mirror<Int>()
      let view = array.filterElements(isIncluded).observe { mirror.receive($0) }
      // Every operation, and every 16th event's sequence, kept while later events are built.
      let kept = LockedState<[(operation: ObservableArrayOperation<Int>, sequence: [Int]?)]>([])
      let keeper = array.filterElements(isIncluded).observe { event in
        kept.withLock { $0.append((event.operation, $0.count % 16 == 0 ? event.sequence : nil)) }
      }
      let lateMirror = Mirror<Int>()
      let late = LockedState<(any DisposableType)?>(nil)
      runTogether(threads: 3) { thread in
        var random = SystemRandomNumberGenerator()
        for step in 0..<steps {
          let value = thread * 1_000_000 + step
          if thread == 0, step == steps / 2 {
            late.withLock { $0 = array.filterElements(isIncluded).observe { lateMirror.receive($0) } }
          }
          switch Int.random(in: 0..<8, using: &random) {
          case 0, 1, 2: array.append(value)
          case 3: array.insert(value, at: 0)
          case 4: array.performBatchUpdates { array in if array.count > 1 { array[array.count / 2] = value } }
          case 5: array.performBatchUpdates { array in if array.count > 30 { array.removeSubrange(0..<4) } }
          case 6: array.append(contentsOf: [value, value + 1, value + 2])
          default: array.performBatchUpdates { array in if !array.isEmpty { array.removeLast() } }
          }
        }
      }
      await array.flush()
      view.dispose()
      keeper.dispose()
      late.withLock { $0 }?.dispose()
      let expected = array.array.filter(isIncluded)
      #expect(mirror.array == expected && mirror.mismatches == 0 && mirror.overlap.count == 0)
      #expect(lateMirror.array == expected && lateMirror.mismatches == 0 && lateMirror.events > 0)
      // A kept sequence never changes afterwards: each still equals the operations up to its event.
      var rebuilt: [Int] = []
      var stale = 0
      for (operation, sequence) in kept.withLock({ $0 }) {
        operation.apply(to: &rebuilt)
        if let sequence, sequence != rebuilt { stale += 1 }
      }
      #expect(rebuilt == expected && stale == 0)
      #expect(array.observerCount == 0)
    }
  }

  @Test func sectionedChangesWithConcurrentInnerMutations() {
    let sections = (0..<3).map { _ in ObservableArray<Int>() }
    let outer = ObservableArray(sections)
    // Touched only by the sectioned deliveries, which are serialized.
    final class State: @unchecked Sendable {
      var latest: [[Int]] = []
      var mirror: [[Int]] = []
    }
    // A copy of both, published at the end of each delivery, for the test to wait on.
    let published = Locked((latest: [[Int]](), mirror: [[Int]]()))
    let state = State()
    let overlap = OverlapDetector()
    let observation = outer.sectionedChanges().observe { event in
      overlap.enter()
      if event.changeset.sections.isEmpty,
        let section = (event.changeset.rowInsertions.first ?? event.changeset.rowDeletions.first)?.section
      {
        var rows = state.mirror[section]
        for deletion in event.changeset.rowDeletions { rows.remove(at: deletion.row) }
        for insertion in event.changeset.rowInsertions {
          rows.insert(event.sections[section][insertion.row], at: insertion.row)
        }
        state.mirror[section] = rows
      } else {
        state.mirror = event.sections
      }
      state.latest = event.sections
      overlap.leave()
      published.withLock { $0 = (state.latest, state.mirror) }
    }
    let perThread = 1_000 * stressScale
    runTogether(threads: 4) { thread in
      for step in 0..<perThread {
        if thread == 3 {
          if step % 100 == 0 { outer.append(ObservableArray([step])) }
        } else {
          sections[thread].append(step)
          if step % 3 == 0 { sections[thread].removeLast() }
        }
      }
    }
    // A sentinel last in each original section (no step is negative): the sectioned state can equal
    // the final one only once every section's last change has come through. Without it, a state
    // passed on the way (a section's `append(998)` before its `append(999)`, `removeLast()`) equals
    // the final one while the last changes are still on their way (a worker delivers what a call
    // handed off), and the check below would read the state in the middle of them.
    for section in sections { section.append(-1) }
    let actual = outer.array.map(\.array)
    waitUntil { published.withLock { $0.latest == actual && $0.mirror == actual } }
    observation.dispose()
    #expect(state.latest == actual && state.mirror == actual && overlap.count == 0)
    #expect(outer.observerCount == 0 && outer.array.allSatisfy { $0.observerCount == 0 })
  }
}
