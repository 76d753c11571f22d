import Foundation
import Synchronization
import Testing

@testable import Bond

// Concurrency-limited stages under threads (CONTRACT.md, "Concurrency-limited stages"): the bound,
// the order, dispose while transforms run, the end after the last result, and the pressure when
// the bound is reached. Each scenario under a watchdog. Run under
// `swift test --scratch-path .build-tsan --sanitize=thread --filter ConcurrentMapStressTests`.

/// The most transforms seen running at once.
private final class Peak: @unchecked Sendable {
  private let lock = NSLock()
  private var now = 0
  private(set) var most = 0
  func enter() {
    lock.lock()
    now += 1
    most = Swift.max(most, now)
    lock.unlock()
  }
  func leave() {
    lock.lock()
    now -= 1
    lock.unlock()
  }
}

@Suite struct ConcurrentMapStressTests {
  /// Four senders at once: at most `maxConcurrent` transforms at once, every result once, in the
  /// order of the one delivery order of the upstream, one delivery at a time, then the end.
  @Test func boundOrderAndTheEndUnderConcurrentSenders() async {
    await withWatchdog("boundOrderAndTheEndUnderConcurrentSenders", seconds: 120) {
      let source = EventProducer<Int>()
      let peak = Peak()
      let overlaps = OverlapDetector()
      let upstreamOrder = Recorder<Int>()
      let results = Recorder<Int>()
      let ended = DispatchSemaphore(value: 0)
      // The upstream's own order, recorded by an observer registered first.
      source.observe { upstreamOrder.add($0) }
      source.map(maxConcurrent: 4, bufferLimit: 64) { value -> Int in
        peak.enter()
        if value % 7 == 0 { try? await Task.sleep(nanoseconds: 20_000) }
        peak.leave()
        return value
      }.observe { value in
        overlaps.enter()
        results.add(value)
        overlaps.leave()
      } finished: {
        ended.signal()
      }
      let perThread = 1_000 * stressScale
      runTogether(threads: 4) { thread in
        for sequence in 0..<perThread { source.next(thread * perThread + sequence) }
      }
      await source.flush()
      source.finish()
      #expect(ended.wait(timeout: .now() + 60) == .success, "the end after the last result")
      #expect(results.items == upstreamOrder.items, "every result once, in the order of the events")
      #expect(peak.most <= 4, "at most maxConcurrent at once (saw \(peak.most))")
      #expect(overlaps.count == 0, "one delivery at a time")
    }
  }

  /// mapUnordered under the same load: every result exactly once.
  @Test func unorderedDeliversEveryResultOnce() async {
    await withWatchdog("unorderedDeliversEveryResultOnce", seconds: 120) {
      let source = EventProducer<Int>()
      let results = Recorder<Int>()
      let ended = DispatchSemaphore(value: 0)
      source.mapUnordered(maxConcurrent: 3, bufferLimit: 32) { value -> Int in
        if value % 5 == 0 { try? await Task.sleep(nanoseconds: 10_000) }
        return value
      }.observe {
        results.add($0)
      } finished: {
        ended.signal()
      }
      let perThread = 1_000 * stressScale
      runTogether(threads: 3) { thread in
        for sequence in 0..<perThread { source.next(thread * perThread + sequence) }
      }
      await source.flush()
      source.finish()
      #expect(ended.wait(timeout: .now() + 60) == .success)
      #expect(results.items.sorted() == Array(0..<(3 * perThread)))
    }
  }

  /// dispose() racing running transforms and senders: it returns, no result is delivered after
  /// it returned (one already running may end), every transform is cancelled or finishes, and the
  /// source is writable again.
  @Test func disposeWhileTransformsRun() {
    withWatchdog("disposeWhileTransformsRun", seconds: 120) {
      for _ in 0..<(30 * stressScale) {
        let source = EventProducer<Int>()
        let disposedReturned = Atomic<Bool>(false)
        let late = Counter()
        let running = Counter()
        let stage = source.map(maxConcurrent: 3, bufferLimit: 8) { value -> Int in
          running.increment()
          try? await Task.sleep(nanoseconds: UInt64(value % 3) * 50_000)
          return value
        }.observe { _ in
          // acquiring: pairs with the releasing store after dispose() returned.
          if disposedReturned.load(ordering: .acquiring) { late.increment() }
        }
        runTogether(threads: 2) { thread in
          if thread == 0 {
            for value in 0..<200 { source.next(value) }
          } else {
            usleep(UInt32.random(in: 0...2_000))
            stage.dispose()
            disposedReturned.store(true, ordering: .releasing)
          }
        }
        usleep(5_000)
        #expect(late.count <= 1, "at most the delivery already running when dispose() returned")
        #expect(source.isWritable && source.observerCount == 0)
      }
    }
  }

  /// Async senders into a stage whose transforms are slow: the stage puts them under pressure, so
  /// the waiting events stay near `bufferLimit` (plus the senders), and every result arrives.
  @Test func asyncSendersArePacedWhenTheBoundIsReached() async {
    await withWatchdog("asyncSendersArePacedWhenTheBoundIsReached", seconds: 120) {
      let source = EventProducer<Int>()
      let results = Recorder<Int>()
      let most = Atomic<Int>(0)
      let received = Atomic<Int>(0)
      let taken = Atomic<Int>(0)
      let stage = source.map(maxConcurrent: 2, bufferLimit: 16) { value -> Int in
        taken.add(1, ordering: .relaxed)
        try? await Task.sleep(nanoseconds: 30_000)
        return value
      }.observe { results.add($0) }
      // Counts what entered the stage (registered after it: the same delivery order).
      source.observe { _ in
        let waiting = received.add(1, ordering: .relaxed).newValue - taken.load(ordering: .relaxed)
        if waiting > most.load(ordering: .relaxed) { most.store(waiting, ordering: .relaxed) }
      }
      let senders = 3
      let perSender = 300 * stressScale
      await withTaskGroup(of: Void.self) { group in
        for sender in 0..<senders {
          group.addTask { for value in 0..<perSender { try? await source.send(sender * perSender + value) } }
        }
      }
      #expect(waitUntil { results.items.count == senders * perSender })
      #expect(results.items.sorted() == Array(0..<(senders * perSender)))
      // The bound: bufferLimit plus the senders, plus the transforms running and the ones just taken.
      #expect(most.load(ordering: .relaxed) <= 16 + senders + 2 + 2, "held \(most.load(ordering: .relaxed))")
      stage.dispose()
    }
  }
}
