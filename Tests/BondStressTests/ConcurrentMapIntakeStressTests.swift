import Foundation
import Synchronization
import Testing

@testable import Bond

// The senders' intake of a concurrency-limited stage (ConcurrentMapIntake): a sender leaves its
// event there without the stage's lock while a worker is sure to come for it; the last worker to
// end closes it. The races: a sender's push against the last worker's end (no event may be left
// behind), senders against dispose(), and the pause for the downstream's pressure against senders.
// Each scenario under a watchdog; run under
// `swift test --scratch-path .build-tsan --sanitize=thread --filter ConcurrentMapIntakeStressTests`.

/// Spins about `iterations` rounds: a gap between two events short enough to race a worker's end.
private func shortGap(_ iterations: Int) {
  var value = 0
  for index in 0..<iterations { value &+= index }
  if value == -1 { print(value) }
}

@Suite struct ConcurrentMapIntakeStressTests {
  /// Two threads send in bursts with gaps of every length, so that the workers often run dry and
  /// end while an event is on its way: every result arrives, in the upstream's order, and then the
  /// end (an event left in a closed intake would never come out).
  @Test func noEventIsLeftBehindWhenTheLastWorkerEnds() async {
    await withWatchdog("noEventIsLeftBehindWhenTheLastWorkerEnds", seconds: 120) {
      let source = EventProducer<Int>()
      let upstreamOrder = Recorder<Int>()
      let results = Recorder<Int>()
      let ended = DispatchSemaphore(value: 0)
      source.observe { upstreamOrder.add($0) }
      source.map(maxConcurrent: 2, bufferLimit: 16) { $0 }.observe {
        results.add($0)
      } finished: {
        ended.signal()
      }
      let perThread = 2_000 * stressScale
      runTogether(threads: 2) { thread in
        for sequence in 0..<perThread {
          source.next(thread * perThread + sequence)
          shortGap((sequence * 7919) % 3_000)
        }
      }
      await source.flush()
      // Every event is in, and the stage ends only after every result: nothing may wait forever.
      source.finish()
      #expect(ended.wait(timeout: .now() + 60) == .success, "the end after the last result")
      #expect(results.items == upstreamOrder.items, "every result once, in the order of the events")
    }
  }

  /// Bursts after idle moments: each burst finds the workers ended and the intake closed, and must
  /// be taken in full before the next one starts.
  @Test func eachBurstAfterAnIdleMomentIsTakenInFull() {
    withWatchdog("eachBurstAfterAnIdleMomentIsTakenInFull", seconds: 120) {
      let source = EventProducer<Int>()
      let results = Recorder<Int>()
      let delivered = Atomic<Int>(0)
      let stage = source.map(maxConcurrent: 3, bufferLimit: 8) { $0 }.observe { value in
        results.add(value)
        delivered.add(1, ordering: .releasing)
      }
      var sent = 0
      for burst in 0..<(300 * stressScale) {
        for _ in 0..<(1 + burst % 20) {
          source.next(sent)
          sent += 1
        }
        let expected = sent
        #expect(waitUntil { delivered.load(ordering: .acquiring) == expected }, "burst \(burst) taken in full")
      }
      #expect(results.items == Array(0..<sent))
      stage.dispose()
    }
  }

  /// dispose() racing two senders on the intake's fast path: it returns, no result is delivered
  /// after it returned (one already running may end), the events it let go leave `bufferedCount`
  /// (the intake's included), and the source is writable and unobserved again.
  @Test func disposeRacesSendersOnTheIntake() async {
    await withWatchdog("disposeRacesSendersOnTheIntake", seconds: 120) {
      for round in 0..<(40 * stressScale) {
        let source = EventProducer<Int>()
        let statistics = DeliveryStatistics()
        let disposedReturned = Atomic<Bool>(false)
        let late = Counter()
        let stage = source.map(maxConcurrent: 2, bufferLimit: 64, statistics: statistics) { value -> Int in
          if value % 16 == 0 { try? await Task.sleep(nanoseconds: 20_000) }
          return value
        }.observe { _ in
          // acquiring: pairs with the releasing store after dispose() returned.
          if disposedReturned.load(ordering: .acquiring) { late.increment() }
        }
        runTogether(threads: 3) { thread in
          if thread < 2 {
            for value in 0..<300 { source.next(thread * 300 + value) }
          } else {
            shortGap((round * 104_729) % 200_000)
            stage.dispose()
            disposedReturned.store(true, ordering: .releasing)
          }
        }
        await source.flush()
        usleep(2_000)
        #expect(late.count <= 1, "at most the delivery already running when dispose() returned")
        #expect(source.isWritable && source.observerCount == 0)
        // Taken events left the count when taken, the rest at dispose(): none is counted.
        #expect(waitUntil { statistics.bufferedCount == 0 }, "bufferedCount \(statistics.bufferedCount)")
      }
    }
  }

  /// Async senders into a stage whose downstream (a `.backpressure` deliverOn on a queue) keeps
  /// pausing its workers: events keep arriving while the stage is paused, through the intake and
  /// through the machine; every result arrives in order after the pauses, then the end.
  @Test func eventsSentWhileTheStageIsPausedComeThrough() async {
    await withWatchdog("eventsSentWhileTheStageIsPausedComeThrough", seconds: 120) {
      let source = EventProducer<Int>()
      let results = Recorder<Int>()
      let ended = Atomic<Bool>(false)
      let queue = DispatchQueue(label: "ConcurrentMapIntakeStressTests.downstream")
      let stage = source.map(maxConcurrent: 2, bufferLimit: 8) { $0 }
        .deliverOn(queue, bufferLimit: 4, whenFull: .backpressure)
        .observe { value in
          results.add(value)
          if value % 64 == 0 { usleep(200) }  // a consumer that lags now and then
        } finished: {
          ended.store(true, ordering: .releasing)
        }
      let count = 3_000 * stressScale
      for value in 0..<count { try? await source.send(value) }
      source.finish()
      #expect(waitUntil { ended.load(ordering: .acquiring) }, "the end after the last result")
      #expect(results.items == Array(0..<count))
      stage.dispose()
    }
  }
}
