import Bond
import Foundation
import Synchronization
import Testing

// Uses runTogether, Counter and stressScale from Support/Stress.swift.

/// A reusable barrier for a fixed number of threads that spins (yielding the CPU) until all have
/// arrived, so each round starts on threads that are already running and the round's operations
/// really collide.
private final class SpinBarrier: Sendable {
  private let parties: Int
  private let arrived = Atomic(0)
  private let generation = Atomic(0)

  init(parties: Int) { self.parties = parties }

  func wait() {
    // Acquiring/releasing: what a thread did before the barrier happens before what the others
    // do after it (the tests read their results only after joining, but keep the barrier honest).
    let current = generation.load(ordering: .acquiring)
    if arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
      arrived.store(0, ordering: .relaxed)  // nobody touches `arrived` until generation moves on
      generation.wrappingAdd(1, ordering: .releasing)
    } else {
      // Spin a while first (a thread that is running sees the release at once), then yield
      // (there may be more threads than cores).
      var spins = 0
      while generation.load(ordering: .acquiring) == current {
        spins += 1
        if spins > 2_000 { sched_yield() }
      }
    }
  }
}

/// Runs `body(thread, round)` for every round on `threads` threads, all threads starting each
/// round together at a barrier.
private func runInLockstep(
  threads: Int,
  rounds: Int,
  _ body: @escaping @Sendable (_ thread: Int, _ round: Int) -> Void
) {
  let barrier = SpinBarrier(parties: threads)
  runTogether(threads: threads) { thread in
    for round in 0..<rounds {
      barrier.wait()
      body(thread, round)
    }
  }
}

/// A fresh disposable that counts its disposals in `counter`.
private func counted(_ counter: Counter) -> BlockDisposable {
  BlockDisposable { counter.increment() }
}

/// Busy-waits a little, `amount` steps, so a racing operation lands at a different point of the
/// other threads' work in each round.
private func stagger(_ amount: Int) {
  var sink = 0
  for step in 0..<amount * 8 { sink &+= step }
  precondition(sink >= 0 || sink < 0)  // keeps the loop from being optimized away
}

/// `count` fresh counters.
private func makeCounters(_ count: Int) -> [Counter] {
  (0..<count).map { _ in Counter() }
}

@Suite(.serialized) struct DisposableStressTests {
  @Test func concurrentDisposeRunsTheHandlerExactlyOnce() {
    let rounds = 2_000 * stressScale
    let batch = 4
    let counters = makeCounters(rounds * batch)
    let blocks = counters.map(counted)
    runInLockstep(threads: 4, rounds: rounds) { _, round in
      // Every thread disposes the same disposables of this round, so the disposals collide.
      for block in blocks[round * batch..<(round + 1) * batch] {
        block.dispose()
        precondition(block.isDisposed, "disposed after dispose() returned")
      }
    }
    #expect(counters.allSatisfy { $0.count == 1 })
  }

  @Test func compositeAddRacingDisposeDisposesEveryChildExactlyOnce() {
    let rounds = 2_000 * stressScale
    let adders = 3
    let perAdder = 4
    let composites = (0..<rounds).map { _ in CompositeDisposable() }
    let counters = makeCounters(rounds * adders * perAdder)
    runInLockstep(threads: adders + 1, rounds: rounds) { thread, round in
      let composite = composites[round]
      if thread == adders {
        stagger(round % 8)
        composite.dispose()
      } else {
        stagger(round / 8 % 8)
        let first = (round * adders + thread) * perAdder
        for index in first..<first + perAdder { composite += counted(counters[index]) }
      }
    }
    // Every composite is disposed, so each child was disposed by it, at dispose() or at add.
    #expect(composites.allSatisfy { $0.isDisposed })
    #expect(counters.allSatisfy { $0.count == 1 })
  }

  @Test func bagAddRacingDisposeDisposesEveryChildExactlyOnce() {
    let rounds = 2_000 * stressScale
    let adders = 2
    let disposers = 2
    let perAdder = 4
    let bags = (0..<rounds).map { _ in DisposeBag() }
    let counters = makeCounters(rounds * adders * perAdder)
    runInLockstep(threads: adders + disposers, rounds: rounds) { thread, round in
      let bag = bags[round]
      if thread >= adders {
        stagger((round + thread) % 8)
        bag.dispose()  // two disposers race each other and the adders
      } else {
        stagger(round / 8 % 8)
        let first = (round * adders + thread) * perAdder
        for index in first..<first + perAdder { counted(counters[index]).disposeIn(bag) }
      }
    }
    #expect(counters.allSatisfy { $0.count <= 1 }, "nothing disposed twice")
    // What was added after the racing dispose() calls is still held; a last dispose ends it all.
    for bag in bags { bag.dispose() }
    #expect(counters.allSatisfy { $0.count == 1 })
  }

  @Test func bagFilledFromSeveralThreadsDisposesAllOnDeinit() {
    let rounds = 500 * stressScale
    let adders = 4
    let counters = makeCounters(rounds * adders)
    weak var weakBag: DisposeBag?
    do {
      let bag = DisposeBag()
      weakBag = bag
      // Captured weakly: the threads may release their closures after runInLockstep returns.
      runInLockstep(threads: adders, rounds: rounds) { [weak bag] thread, round in
        bag?.add(counted(counters[round * adders + thread]))
      }
      #expect(counters.allSatisfy { $0.count == 0 })
    }
    #expect(weakBag == nil)
    #expect(counters.allSatisfy { $0.count == 1 }, "the bag's deinit disposed all")
  }

  @Test func serialReplacedFromSeveralThreadsWhileDisposedDisposesEachExactlyOnce() {
    let rounds = 2_000 * stressScale
    let setters = 3
    let perSetter = 4
    let serials = (0..<rounds).map { _ in SerialDisposable() }
    let counters = makeCounters(rounds * setters * perSetter)
    runInLockstep(threads: setters + 1, rounds: rounds) { thread, round in
      let serial = serials[round]
      if thread == setters {
        stagger(round % 8)
        serial.dispose()
      } else {
        stagger(round / 8 % 8)
        let first = (round * setters + thread) * perSetter
        for index in first..<first + perSetter {
          serial.otherDisposable = counted(counters[index])
        }
      }
    }
    // Each one was replaced, disposed with its serial, or disposed at once when set after that.
    #expect(serials.allSatisfy { $0.isDisposed && $0.otherDisposable == nil })
    #expect(counters.allSatisfy { $0.count == 1 })
  }
}
