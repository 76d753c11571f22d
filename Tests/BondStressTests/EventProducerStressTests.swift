import Foundation
import Synchronization
import Testing
@testable import Bond

/// The guarantees of EventProducer under real races. Run under `swift test --sanitize=thread`.
@Suite struct EventProducerStressTests {
  struct Stamp: Sendable, Equatable {
    let thread: Int
    let sequence: Int
  }

  @Test func manySendersLoseNothingKeepPerThreadOrderAndNeverOverlap() async {
    await withWatchdog("manySendersLoseNothingKeepPerThreadOrderAndNeverOverlap", seconds: 120) {
      let threads = 4
      let perThread = 20_000 * stressScale
      let producer = EventProducer<Stamp>()
      let overlap = OverlapDetector()
      let firstLog = Recorder<Stamp>()
      let secondLog = Recorder<Stamp>()
      // Each observer's log is touched only by deliveries, which never overlap.
      var first: [Stamp] = []
      var second: [Stamp] = []
      let a = producer.observe {
        overlap.enter()
        first.append($0)
        overlap.leave()
      }
      let b = producer.observe {
        overlap.enter()
        second.append($0)
        overlap.leave()
      }
      runTogether(threads: threads) { thread in
        for sequence in 0..<perThread { producer.next(Stamp(thread: thread, sequence: sequence)) }
      }
      await producer.flush()
      a.dispose()
      b.dispose()
      first.forEach(firstLog.add)
      second.forEach(secondLog.add)
      #expect(overlap.count == 0)
      #expect(first.count == threads * perThread)
      #expect(first == second, "every observer sees the same order")
      for thread in 0..<threads {
        #expect(first.filter { $0.thread == thread }.map(\.sequence) == Array(0..<perThread))
      }
    }
  }

  @Test func observersComingAndGoingSeeAContiguousRun() {
    let producer = EventProducer<Int>()
    let total = 50_000 * stressScale
    let runs = Recorder<[Int]>()
    runTogether(threads: 2) { thread in
      if thread == 0 {
        for value in 0..<total { producer.next(value) }
      } else {
        for _ in 0..<(500 * stressScale) {
          let seen = Recorder<Int>()
          let observation = producer.observe { seen.add($0) }
          for _ in 0..<20 { sched_yield() }
          observation.dispose()
          runs.add(seen.items)
        }
      }
    }
    for run in runs.items where !run.isEmpty {
      #expect(run == Array(run.first!...run.last!), "no gap, no duplicate, in order")
    }
    #expect(producer.observerCount == 0)
  }

  /// dispose() does not wait for a delivery running on another thread: the one the drainer had
  /// already started (its flag checked) may reach the observer after dispose() returned, but no
  /// further delivery starts. So at most one call per round sees `disposedReturned`.
  @Test func noDeliveryStartsAfterDisposeReturns() {
    let violations = Counter()
    for _ in 0..<(300 * stressScale) {
      let producer = EventProducer<Int>()
      let disposedReturned = Atomic<Bool>(false)
      let lateCalls = Counter()
      let observation = producer.observe { _ in
        if disposedReturned.load(ordering: .sequentiallyConsistent) { lateCalls.increment() }
      }
      runTogether(threads: 2) { thread in
        if thread == 0 {
          for value in 0..<500 { producer.next(value) }
        } else {
          for _ in 0..<Int.random(in: 0...200) { sched_yield() }
          observation.dispose()
          disposedReturned.store(true, ordering: .sequentiallyConsistent)
        }
      }
      if lateCalls.count > 1 { violations.increment() }
    }
    #expect(violations.count == 0)
  }

  @Test func replayBoundaryUnderARaceIsExactlyOnce() async {
    await withWatchdog("replayBoundaryUnderARaceIsExactlyOnce", seconds: 120) {
      for iteration in 0..<(1_000 * stressScale) {
        let replay = iteration % 4
        let producer = EventProducer<Int>(replayLength: replay)
        let sent = 200
        let seen = Recorder<Int>()
        let observationBox = Recorder<any DisposableType>()
        runTogether(threads: 2) { thread in
          if thread == 0 {
            for value in 0..<sent { producer.next(value) }
          } else {
            observationBox.add(producer.observe { seen.add($0) })
          }
        }
        await producer.flush()
        let got = seen.items
        // Whatever the interleaving: a contiguous run that ends with the last event sent, and that
        // starts no later than where the replay reaches back (replay + live, nothing missing or twice).
        #expect(got.last == sent - 1 || (replay == 0 && got.isEmpty), "iteration \(iteration)")
        if let first = got.first {
          #expect(got == Array(first..<sent), "iteration \(iteration): \(got.prefix(10))")
        }
        observationBox.items.forEach { $0.dispose() }
      }
    }
  }

  @Test func reentrantSendsUnderConcurrencyAreAllDelivered() async {
    await withWatchdog("reentrantSendsUnderConcurrencyAreAllDelivered", seconds: 120) {
      let producer = EventProducer<Int>()
      let overlap = OverlapDetector()
      let delivered = Counter()
      let perThread = 5_000 * stressScale
      let observation = producer.observe { value in
        overlap.enter()
        delivered.increment()
        if value >= 0 { producer.next(-1) }  // every positive event echoes one negative event
        overlap.leave()
      }
      runTogether(threads: 3) { _ in
        for value in 0..<perThread { producer.next(value) }
      }
      // Each delivery of an event sent before the first flush echoes one behind it: flush twice.
      await producer.flush()
      await producer.flush()
      observation.dispose()
      #expect(overlap.count == 0)
      #expect(delivered.count == 2 * 3 * perThread)
    }
  }

  @Test func twoProducersSendingIntoEachOtherFromTwoThreads() async {
    await withWatchdog("twoProducersSendingIntoEachOtherFromTwoThreads", seconds: 120) {
      let ping = EventProducer<Int>()
      let pong = EventProducer<Int>()
      let received = Counter()
      let limit = 2_000 * stressScale
      let a = ping.observe { value in
        received.increment()
        if value > 0 { pong.next(value - 1) }
      }
      let b = pong.observe { value in
        received.increment()
        if value > 0 { ping.next(value - 1) }
      }
      runTogether(threads: 2) { thread in
        for _ in 0..<10 { (thread == 0 ? ping : pong).next(limit / 10) }
      }
      // Each delivery sends into the other producer, behind a flush already queued there: every
      // round of the two flushes takes the chains at least one step further, and a chain is at
      // most `limit / 10 + 1` steps long.
      for _ in 0...(limit / 10) {
        await ping.flush()
        await pong.flush()
      }
      a.dispose()
      b.dispose()
      #expect(received.count == 2 * 10 * (limit / 10 + 1))
    }
  }

  @Test func observableValueIsTheLastDeliveredUnderConcurrentSets() async {
    await withWatchdog("observableValueIsTheLastDeliveredUnderConcurrentSets", seconds: 120) {
      for _ in 0..<(200 * stressScale) {
        let number = Observable(-1)
        let last = Recorder<Int>()
        var lastSeen = -1
        let observation = number.observe { lastSeen = $0 }
        runTogether(threads: 2) { thread in
          for value in 0..<100 { number.value = thread * 1_000 + value }
        }
        await number.flush()
        observation.dispose()
        last.add(lastSeen)
        #expect(number.value == last.items[0])
      }
    }
  }

  @Test func managedProducerLifetimeUnderConcurrentObserveAndDispose() {
    let disposed = Counter()
    for _ in 0..<(200 * stressScale) {
      var producer: EventProducer<Int>? = EventProducer<Int> { sink in
        sink(0)
        return BlockDisposable { disposed.increment() }
      }
      let observations = Recorder<any DisposableType>()
      // Weak: a detached thread releases its closure a moment after it signals completion.
      runTogether(threads: 2) { [weak producer] _ in
        guard let producer else { return }
        for _ in 0..<20 { producer.observe { _ in }.dispose() }
        observations.add(producer.observe { _ in })
      }
      producer = nil
      _ = producer
      observations.items.forEach { $0.dispose() }
    }
    // A worker that took over a call's hand-off holds its producer until it gives the rights back.
    #expect(waitUntil { disposed.count == 200 * stressScale }, "\(disposed.count) of \(200 * stressScale)")
  }
}
