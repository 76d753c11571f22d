import Foundation
import Synchronization
import Testing
@testable import Bond

// Guarantee 7 of CONTRACT.md: `replace(with:performDiff:)` completes in bounded time however fast
// other threads mutate the array. Run under `swift test --sanitize=thread --filter
// ObservableArrayReplaceStressTests`.

@Suite(.serialized) struct ObservableArrayReplaceStressTests {
  /// Rebuilds the array from the events; remembers the array after each `.batch` (only the
  /// replaces send one here). Written by deliveries, which never overlap; locked because the test
  /// reads it while the last events may still be on their way (a replace that found others'
  /// events queued behind its own hands their delivery to a worker and returns).
  final class ReplaceMirror: @unchecked Sendable {
    private let lock = NSLock()
    private var storedArray: [Int] = []
    private var storedAfterBatches: [[Int]] = []
    let events = Counter()
    let overlap = OverlapDetector()
    func receive(_ event: ObservableArrayEvent<Int>) {
      overlap.enter()
      lock.lock()
      event.operation.apply(to: &storedArray)  // never `event.sequence`: O(n) per event
      if case .batch = event.operation { storedAfterBatches.append(storedArray) }
      lock.unlock()
      events.increment()
      overlap.leave()
    }
    var array: [Int] { lock.withLock { storedArray } }
    var afterBatches: [[Int]] { lock.withLock { storedAfterBatches } }
  }

  final class Flag: Sendable {
    private let raised = Atomic(false)
    func raise() { raised.store(true, ordering: .releasing) }
    var isRaised: Bool { raised.load(ordering: .acquiring) }
  }

  @Test func replaceWithDiffCompletesWhileAnotherThreadMutatesInATightLoop() {
    let size = 20_000
    withWatchdog("replaceWithDiffCompletesWhileAnotherThreadMutatesInATightLoop", seconds: 60) {
      let array = ObservableArray(Array(0..<size))
      let mirror = ReplaceMirror()
      let observation = array.observe { mirror.receive($0) }
      // Each target drops every 50th element and adds 200 new ones: a diff of some hundreds of
      // steps. (The mutator below keeps the contents close to the original, so the diff stays
      // this size: one that churned the contents would make each try a full O(n^2) diff.)
      let targets: [[Int]] = (0..<2 * stressScale).map { k in
        Array(0..<size).filter { $0 % 50 != k } + (1...200).map { -$0 - k * 1_000 }
      }
      let done = Flag()
      let mutations = Counter()
      runTogether(threads: 2) { thread in
        if thread == 0 {
          for target in targets {
            // Contention is the point: each replace starts only once the mutator has run (on a
            // loaded 2-core machine this thread could otherwise finish before the other started).
            let before = mutations.count
            while mutations.count < before + 100 { usleep(100) }
            array.replace(with: target, performDiff: true)
          }
          done.raise()
        } else {
          // A tight loop of mutations (each one moves the array's version on) that leave the
          // contents as they were: append then remove the last element, write an element back.
          var step = 0
          while !done.isRaised {
            switch step % 3 {
            case 0: array.append(-999_999)
            case 1: array.removeLast()
            default:
              let index = step % 1_000
              array[index] = array[index]
            }
            step += 1
            mutations.increment()
          }
        }
      }
      // Every event is delivered, possibly by the worker a replace handed the rest to: wait until
      // the mirror has received all of them (the replay's `.reset`, one per mutation, one `.batch`
      // per replace; a lost event would hang here: the watchdog fails it). Not "until the mirror
      // equals the array": it passes through equal states while an append and its removeLast are
      // still on their way.
      let expectedEvents = 1 + mutations.count + targets.count
      while mirror.events.count < expectedEvents { usleep(1_000) }
      #expect(mirror.events.count == expectedEvents, "no event delivered twice")
      observation.dispose()
      #expect(mutations.count > 0, "the mutator ran")
      #expect(mirror.overlap.count == 0)
      #expect(mirror.array == array.array, "the mirror rebuilt from the events equals the array")
      #expect(mirror.afterBatches.count == targets.count, "one .batch per replace")
      #expect(mirror.afterBatches == targets, "each replace took the array to its target in one atomic event")
      #expect(array.observerCount == 0)
    }
  }
}
