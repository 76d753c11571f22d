import Foundation
import Synchronization
import Testing
@testable import Bond

/// combineLatest, merge and switchToLatest serialize what their sources send concurrently.
/// Run under `swift test --sanitize=thread --filter CombiningStressTests`: each observation's state
/// lives in plain vars touched only by its deliveries, which must never overlap; TSan checks that.
@Suite struct CombiningStressTests {
  struct Stamp: Sendable, Equatable {
    let source: Int
    let sequence: Int
  }

  @Test func combineLatestOfTwoSourcesSendingFromTwoThreads() {
    let perThread = 20_000 * stressScale
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let overlaps = OverlapDetector()
    // Touched only by deliveries, which never overlap.
    var first: (Int, Int)?
    var last = (-1, -1)
    var tuples = 0
    var backwards = 0
    let progress = DeliveryProgress()
    let observation = combineLatest(a, b).observe { x, y in
      overlaps.enter()
      if first == nil { first = (x, y) }
      if x < last.0 || y < last.1 { backwards += 1 }
      last = (x, y)
      tuples += 1
      overlaps.leave()
      progress.advance()
    }
    runTogether(threads: 2) { thread in
      let source = thread == 0 ? a : b
      for value in 0..<perThread { source.next(value) }
    }
    // Every event from the first tuple's on makes one tuple; the `x0 + y0 + 1` events before it
    // (all from the source that sent first, up to its value in the first tuple) make none.
    progress.wait(for: 1)
    let (x0, y0) = first ?? (0, 0)
    progress.wait(for: 2 * perThread - (x0 + y0 + 1))
    observation.dispose()
    #expect(overlaps.count == 0, "one delivery at a time")
    #expect(backwards == 0, "components never go back")
    #expect(last == (perThread - 1, perThread - 1), "the last tuple holds the last values")
    #expect(x0 == 0 || y0 == 0)
    #expect(tuples == 2 * perThread - (x0 + y0 + 1), "one tuple per event once both have sent")
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  @Test func combineLatestWithASlowObserverQueuesLosslessly() {
    // The observer stalls now and then: the senders run ahead, past each upstream's lock-free
    // ring and into its overflow queue, and back.
    let perThread = 5_000 * stressScale
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    var last = (-1, -1)
    var tuples = 0
    var backwards = 0
    var first: (Int, Int)?
    let progress = DeliveryProgress()
    let observation = combineLatest(a, b).observe { x, y in
      if first == nil { first = (x, y) }
      if x < last.0 || y < last.1 { backwards += 1 }
      last = (x, y)
      tuples += 1
      if tuples % 500 == 0 { for _ in 0..<200 { sched_yield() } }
      progress.advance()
    }
    runTogether(threads: 2) { thread in
      let source = thread == 0 ? a : b
      for value in 0..<perThread { source.next(value) }
    }
    progress.wait(for: 1)
    let (x0, y0) = first ?? (0, 0)
    progress.wait(for: 2 * perThread - (x0 + y0 + 1))
    observation.dispose()
    #expect(backwards == 0)
    #expect(last == (perThread - 1, perThread - 1))
    #expect(tuples == 2 * perThread - (x0 + y0 + 1))
  }

  @Test func combineLatestOfObservablesObservedWhileTheyChange() {
    let rounds = 200 * stressScale
    let a = Observable(0)
    let b = Observable(0)
    let problems = Counter()
    runTogether(threads: 2) { thread in
      if thread == 0 {
        for value in 1...(rounds * 50) {
          a.value = value
          b.value = value
        }
      } else {
        for _ in 0..<rounds {
          var last = (-1, -1)  // touched only by this observation's deliveries
          let observation = combineLatest(a, b).observe { x, y in
            if x < last.0 || y < last.1 { problems.increment() }
            last = (x, y)
          }
          observation.dispose()
        }
      }
    }
    #expect(problems.count == 0)
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  @Test func mergeOfFourInnersOnFourThreads() {
    let threads = 4
    let perThread = 10_000 * stressScale
    let outer = EventProducer<EventProducer<Stamp>>()
    let inners = (0..<threads).map { _ in EventProducer<Stamp>() }
    let overlaps = OverlapDetector()
    var received: [[Int]] = Array(repeating: [], count: threads)  // touched only by deliveries
    let progress = DeliveryProgress()
    let observation = outer.merge().observe { stamp in
      overlaps.enter()
      received[stamp.source].append(stamp.sequence)
      overlaps.leave()
      progress.advance()
    }
    for inner in inners { outer.next(inner) }
    runTogether(threads: threads) { thread in
      for sequence in 0..<perThread { inners[thread].next(Stamp(source: thread, sequence: sequence)) }
    }
    progress.wait(for: threads * perThread)
    observation.dispose()
    #expect(overlaps.count == 0, "one delivery at a time")
    for thread in 0..<threads {
      #expect(received[thread] == Array(0..<perThread), "nothing lost, each inner's order kept")
    }
    #expect(outer.observerCount == 0 && inners.allSatisfy { $0.observerCount == 0 })
  }

  @Test func mergeOfAnArrayWhileInnersArriveAndSend() {
    let threads = 4
    let perThread = 5_000 * stressScale
    let producers = (0..<threads).map { _ in EventProducer<Stamp>() }
    let overlaps = OverlapDetector()
    var received: [[Int]] = Array(repeating: [], count: threads)
    let progress = DeliveryProgress()
    let observation = merge(producers).observe { stamp in
      overlaps.enter()
      received[stamp.source].append(stamp.sequence)
      overlaps.leave()
      progress.advance()
    }
    runTogether(threads: threads) { thread in
      for sequence in 0..<perThread { producers[thread].next(Stamp(source: thread, sequence: sequence)) }
    }
    progress.wait(for: threads * perThread)
    observation.dispose()
    #expect(overlaps.count == 0)
    for thread in 0..<threads { #expect(received[thread] == Array(0..<perThread)) }
  }

  @Test func innersArrivingConcurrentlyWithTheirEvents() {
    let threads = 3
    let innersPerThread = 300 * stressScale
    let outer = EventProducer<Observable<Stamp>>()
    let overlaps = OverlapDetector()
    var received: [Stamp] = []
    // Counts each inner's later value (its last event: its replay, if any, comes before it).
    let lastValues = DeliveryProgress()
    let observation = outer.merge().observe { stamp in
      overlaps.enter()
      received.append(stamp)
      overlaps.leave()
      if stamp.sequence == 1 { lastValues.advance() }
    }
    runTogether(threads: threads) { thread in
      for index in 0..<innersPerThread {
        let inner = Observable(Stamp(source: thread * innersPerThread + index, sequence: 0))
        outer.next(inner)
        inner.value = Stamp(source: thread * innersPerThread + index, sequence: 1)
      }
    }
    lastValues.wait(for: threads * innersPerThread)
    observation.dispose()
    #expect(overlaps.count == 0)
    // Each inner's replay, then its later value: [0, 1], or [1] when the outer was busy and the
    // inner was observed after its value changed. Never out of order, lost or doubled.
    var sequences: [Int: [Int]] = [:]
    for stamp in received { sequences[stamp.source, default: []].append(stamp.sequence) }
    #expect(sequences.count == threads * innersPerThread)
    #expect(sequences.values.allSatisfy { $0 == [0, 1] || $0 == [1] })
  }

  @Test func switchRacingASenderOnTheOldInner() {
    struct Value: Sendable {
      let inner: Int
      let sentAfterSwitch: Bool
    }
    let rounds = 300 * stressScale
    let stale = Counter()
    let overlaps = OverlapDetector()
    for _ in 0..<rounds {
      let outer = EventProducer<EventProducer<Value>>()
      let old = EventProducer<Value>()
      let new = EventProducer<Value>(replayLength: 1)
      new.next(Value(inner: 1, sentAfterSwitch: true))
      var sawNew = false  // touched only by deliveries
      let observation = outer.switchToLatest().observe { value in
        overlaps.enter()
        if value.inner == 0 && (value.sentAfterSwitch || sawNew) { stale.increment() }
        if value.inner == 1 { sawNew = true }
        overlaps.leave()
      }
      outer.next(old)
      let switched = Atomic<Bool>(false)
      runTogether(threads: 2) { thread in
        if thread == 0 {
          // `sentAfterSwitch`: sent once `outer.next(new)` had returned, so queued after the switch.
          for _ in 0..<200 {
            let after = switched.load(ordering: .acquiring)
            old.next(Value(inner: 0, sentAfterSwitch: after))
          }
        } else {
          for _ in 0..<20 { sched_yield() }
          outer.next(new)
          switched.store(true, ordering: .releasing)
          new.next(Value(inner: 1, sentAfterSwitch: true))
        }
      }
      observation.dispose()
      #expect(old.observerCount == 0 && new.observerCount == 0)
    }
    #expect(stale.count == 0, "no event of the old inner after the switch")
    #expect(overlaps.count == 0)
  }

  /// dispose() never waits: a delivery already running on another thread may finish after it
  /// returns (at most one per observation), but no new one starts.
  @Test func disposeRacingSendersStopsEveryDelivery() {
    let rounds = 200 * stressScale
    let late = Counter()
    for round in 0..<rounds {
      let lateThisRound = Counter()
      let a = EventProducer<Int>()
      let b = EventProducer<Int>()
      let outer = EventProducer<EventProducer<Int>>()
      let disposed = Atomic<Bool>(false)
      let observer: (Int) -> Void = { _ in if disposed.load(ordering: .acquiring) { lateThisRound.increment() } }
      let observation: any DisposableType
      switch round % 3 {
      case 0: observation = combineLatest(a, b).map { $0 + $1 }.observe(observer)
      case 1: observation = merge([a, b]).observe(observer)
      default:
        observation = outer.switchToLatest().observe(observer)
        outer.next(a)
      }
      a.next(0)
      b.next(0)
      runTogether(threads: 3) { thread in
        switch thread {
        case 0: for value in 0..<300 { a.next(value) }
        case 1: for value in 0..<300 { b.next(value) }
        default:
          for _ in 0..<50 { sched_yield() }
          observation.dispose()
          disposed.store(true, ordering: .releasing)
        }
      }
      #expect(a.observerCount == 0 && b.observerCount == 0 && outer.observerCount == 0)
      if lateThisRound.count > 1 { late.increment() }
    }
    #expect(late.count == 0, "no delivery starts after dispose() returns (one already running may finish)")
  }
}
