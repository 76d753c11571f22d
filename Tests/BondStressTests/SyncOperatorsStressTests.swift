import Foundation
import Testing
@testable import Bond

/// Stateful synchronous operators, `share`, `observeNew` and `values` under concurrent senders.
/// Run under `swift test --sanitize=thread --filter SyncOperatorsStressTests`: the operators keep
/// per-observer state in plain captured vars, which is only safe because delivery to one observer
/// is never concurrent; TSan checks that.
@Suite struct SyncOperatorsStressTests {
  struct Stamp: Sendable, Equatable {
    let thread: Int
    let sequence: Int
  }

  @Test func statefulChainsUnderConcurrentSenders() async {
    await withWatchdog("statefulChainsUnderConcurrentSenders", seconds: 120) {
      let threads = 4
      let perThread = 10_000 * stressScale
      let producer = EventProducer<Stamp>(replayLength: 3)
      for sequence in 0..<3 { producer.next(Stamp(thread: -1, sequence: sequence)) }
      // Observer state touched only by deliveries, which never overlap.
      var counts: [Int] = []
      var lastCount = 0
      var started: [Stamp] = []
      let counting =
        producer
        .skip(2)
        .distinct()
        .map { _ in 1 }
        .reduce(0, +)
        .observe {
          lastCount = $0
          counts.append($0)
        }
      let starting = producer.startWith(Stamp(thread: -2, sequence: 0)).skip(1).observe { started.append($0) }
      runTogether(threads: threads) { thread in
        for sequence in 0..<perThread { producer.next(Stamp(thread: thread, sequence: sequence)) }
      }
      await producer.flush()
      counting.dispose()
      starting.dispose()
      // One replayed event survives skip(2); every live one is distinct.
      #expect(lastCount == 1 + threads * perThread)
      #expect(counts == Array(1...(1 + threads * perThread)))
      #expect(started.count == 3 + threads * perThread)
      for thread in 0..<threads {
        #expect(started.filter { $0.thread == thread }.map(\.sequence) == Array(0..<perThread))
      }
      #expect(producer.observerCount == 0)
    }
  }

  @Test func observeNewWhileOthersSendSeesAContiguousRunWithoutTheReplay() {
    let producer = EventProducer<Int>(replayLength: 4)
    producer.next(-1)
    let total = 40_000 * stressScale
    let runs = Recorder<(replayEnd: Int, run: [Int])>()
    runTogether(threads: 2) { thread in
      if thread == 0 {
        for value in 0..<total { producer.next(value) }
      } else {
        for _ in 0..<(300 * stressScale) {
          // Locked: dispose() does not wait for a delivery running on the sending thread, so the
          // observers may still be writing when it returns (contract guarantee 3).
          let replayed = Recorder<Int>()
          let run = Recorder<Int>()
          let everything = producer.observe { replayed.add($0) }
          everything.dispose()
          let observation = producer.map { $0 }.skip(0).observeNew { run.add($0) }
          for _ in 0..<20 { sched_yield() }
          observation.dispose()
          runs.add((replayed.items.last ?? Int.min, run.items))
        }
      }
    }
    for (replayEnd, run) in runs.items where !run.isEmpty {
      #expect(run == Array(run.first!...run.last!), "no gap, no duplicate, in order")
      #expect(run.first! > replayEnd, "nothing from the replay")
    }
    #expect(producer.observerCount == 0)
  }

  @Test func shareRunsTheChainOncePerEventUnderConcurrentSenders() async {
    await withWatchdog("shareRunsTheChainOncePerEventUnderConcurrentSenders", seconds: 120) {
      let threads = 4
      let perThread = 10_000 * stressScale
      let source = EventProducer<Int>()
      let calls = Counter()
      let shared = source.map { value -> Int in
        calls.increment()
        return value
      }.share(replayLength: 1)
      var firstCount = 0
      var secondCount = 0
      let a = shared.observe { _ in firstCount += 1 }
      let b = shared.observe { _ in secondCount += 1 }
      runTogether(threads: threads) { _ in
        for value in 0..<perThread { source.next(value) }
      }
      // The source's deliveries send into the shared producer: upstream first.
      await source.flush()
      await shared.flush()
      #expect(calls.count == threads * perThread)
      #expect(firstCount == threads * perThread && secondCount == threads * perThread)
      a.dispose()
      b.dispose()
    }
  }

  @Test func valuesReceivesEverythingSentConcurrently() async {
    let threads = 4
    let perThread = 5_000 * stressScale
    let producer = EventProducer<Stamp>()
    let stream = producer.values
    let consumer = Task.detached {
      var received: [Stamp] = []
      for await stamp in stream {
        received.append(stamp)
        if received.count == threads * perThread { break }
      }
      return received
    }
    runTogether(threads: threads) { thread in
      for sequence in 0..<perThread { producer.next(Stamp(thread: thread, sequence: sequence)) }
    }
    let received = await consumer.value
    for thread in 0..<threads {
      #expect(received.filter { $0.thread == thread }.map(\.sequence) == Array(0..<perThread))
    }
    _ = stream
  }
}
