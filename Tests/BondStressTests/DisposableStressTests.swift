import Bond
import Dispatch
import Foundation
import Synchronization
import Testing

/// Multiplies every iteration count (`BOND_STRESS_SCALE=10 swift test ...` for a long run).
private let scale = Int(ProcessInfo.processInfo.environment["BOND_STRESS_SCALE"] ?? "1") ?? 1

/// Runs `body(thread)` on `threads` new threads that all start together: each thread waits at a
/// barrier until every thread is running, then they are released at once. Returns when all finish.
private func runTogether(threads: Int, _ body: @escaping @Sendable (_ thread: Int) -> Void) {
  let ready = DispatchSemaphore(value: 0)
  let go = DispatchSemaphore(value: 0)
  let done = DispatchGroup()
  for thread in 0..<threads {
    done.enter()
    Thread.detachNewThread {
      ready.signal()
      go.wait()
      body(thread)
      done.leave()
    }
  }
  for _ in 0..<threads { ready.wait() }
  for _ in 0..<threads { go.signal() }
  done.wait()
}

/// Counts how many times something happened, from any thread.
private final class Counter: Sendable {
  private let value = Atomic(0)
  func increment() { value.add(1, ordering: .relaxed) }  // only counted; read after the threads join
  var count: Int { value.load(ordering: .relaxed) }
}

/// A fresh disposable that counts its disposals in `counter`.
private func counted(_ counter: Counter) -> BlockDisposable {
  BlockDisposable { counter.increment() }
}

@Suite struct DisposableStressTests {
  @Test func concurrentDisposeRunsTheHandlerExactlyOnce() {
    let rounds = 3_000 * scale
    let counters = (0..<rounds).map { _ in Counter() }
    let blocks = counters.map(counted)
    runTogether(threads: 6) { _ in
      // Every thread disposes the same disposables in the same order, so they collide on each.
      for block in blocks {
        block.dispose()
        precondition(block.isDisposed)
      }
    }
    #expect(counters.allSatisfy { $0.count == 1 })
  }

  @Test func compositeAddRacingDisposeDisposesEveryChildExactlyOnce() {
    let rounds = 1_000 * scale
    let adders = 3
    let perRound = 4
    let composites = (0..<rounds).map { _ in CompositeDisposable() }
    let counters = (0..<adders).map { _ in (0..<rounds * perRound).map { _ in Counter() } }
    runTogether(threads: adders + 1) { thread in
      if thread == adders {
        for composite in composites { composite.dispose() }
      } else {
        for (round, composite) in composites.enumerated() {
          for index in 0..<perRound {
            composite += counted(counters[thread][round * perRound + index])
          }
        }
      }
    }
    // Every composite is disposed now, so each child was disposed by it (at dispose or at add).
    #expect(composites.allSatisfy { $0.isDisposed })
    #expect(counters.joined().allSatisfy { $0.count == 1 })
  }

  @Test func bagAddRacingDisposeDisposesEveryChildExactlyOnce() {
    let rounds = 1_000 * scale
    let adders = 3
    let perRound = 4
    let bags = (0..<rounds).map { _ in DisposeBag() }
    let counters = (0..<adders).map { _ in (0..<rounds * perRound).map { _ in Counter() } }
    runTogether(threads: adders + 2) { thread in
      if thread >= adders {
        for bag in bags { bag.dispose() }  // two disposers race each other and the adders
      } else {
        for (round, bag) in bags.enumerated() {
          for index in 0..<perRound {
            counted(counters[thread][round * perRound + index]).disposeIn(bag)
          }
        }
      }
    }
    #expect(counters.joined().allSatisfy { $0.count <= 1 }, "nothing disposed twice so far")
    // What was added after the racing dispose() calls is still held; a last dispose ends it all.
    for bag in bags { bag.dispose() }
    #expect(counters.joined().allSatisfy { $0.count == 1 })
  }

  @Test func bagDeinitRacingNothingLeftBehind() {
    let rounds = 1_000 * scale
    let adders = 4
    let counters = (0..<adders).map { _ in (0..<rounds).map { _ in Counter() } }
    do {
      let bag = DisposeBag()
      runTogether(threads: adders) { thread in
        for round in 0..<rounds { bag += counted(counters[thread][round]) }
      }
      #expect(counters.joined().allSatisfy { $0.count == 0 })
    }
    #expect(counters.joined().allSatisfy { $0.count == 1 }, "the bag's deinit disposed all")
  }

  @Test func serialReplacedFromSeveralThreadsWhileDisposedDisposesEachExactlyOnce() {
    let rounds = 1_000 * scale
    let setters = 3
    let perRound = 4
    let serials = (0..<rounds).map { _ in SerialDisposable() }
    let counters = (0..<setters).map { _ in (0..<rounds * perRound).map { _ in Counter() } }
    runTogether(threads: setters + 1) { thread in
      if thread == setters {
        for serial in serials { serial.dispose() }
      } else {
        for (round, serial) in serials.enumerated() {
          for index in 0..<perRound {
            serial.otherDisposable = counted(counters[thread][round * perRound + index])
          }
        }
      }
    }
    // Each one was replaced, disposed with its serial, or disposed at once after it.
    #expect(serials.allSatisfy { $0.isDisposed && $0.otherDisposable == nil })
    #expect(counters.joined().allSatisfy { $0.count == 1 })
  }
}
