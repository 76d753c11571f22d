import Bond
import Foundation
import Synchronization
import Testing

// Uses runTogether, Recorder and stressScale from Support/Stress.swift.

/// `finish()` racing `next` from other threads while observers come and go (CONTRACT.md,
/// "Finite streams" 1, 2 and 6): the end takes one place in the one delivery order.
@Suite struct FinishStressTests {
  /// What one observer saw: its events, and how many ends.
  final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Int] = []
    private var ends = 0
    private var afterEnd = 0
    func event(_ value: Int) {
      lock.lock()
      if ends > 0 { afterEnd += 1 }
      events.append(value)
      lock.unlock()
    }
    func end() {
      lock.lock()
      ends += 1
      lock.unlock()
    }
    var snapshot: (events: [Int], ends: Int, afterEnd: Int) {
      lock.lock()
      defer { lock.unlock() }
      return (events, ends, afterEnd)
    }
  }

  @Test func finishRacingSendsAndObserversComingAndGoing() async {
    // Paced by `sched_yield`: on a loaded machine under ThreadSanitizer a run takes minutes.
    await withWatchdog("finishRacingSendsAndObserversComingAndGoing", seconds: 600) {
      for _ in 0..<(40 * stressScale) {
        let producer = EventProducer<Int>(replayLength: 3)
        let reference = Log()
        producer.observe {
          reference.event($0)
        } finished: {
          reference.end()
        }
        let kept = Recorder<Log>()
        let disposed = Recorder<Log>()
        runTogether(threads: 4) { thread in
          switch thread {
          case 0, 1:
            for i in 0..<2_000 { producer.next(thread * 1_000_000 + i) }
          case 2:
            for i in 0..<300 {
              let log = Log()
              let observation = producer.observe {
                log.event($0)
              } finished: {
                log.end()
              }
              if i % 2 == 0 {
                observation.dispose()
                disposed.add(log)
              } else {
                kept.add(log)
              }
            }
          default:
            for _ in 0..<Int.random(in: 0...2_000) { sched_yield() }
            producer.finish()
            producer.next(-1)
          }
        }
        await producer.flush()
        let order = reference.snapshot
        #expect(order.ends == 1 && order.afterEnd == 0, "the first observer: one end, nothing after")
        #expect(!order.events.contains(-1), "an event after the end reaches nobody")
        #expect(producer.observerCount == 0 && producer.isFinished)
        for log in kept.items {
          let seen = log.snapshot
          #expect(seen.ends == 1 && seen.afterEnd == 0, "every kept observer gets exactly one end, nothing after")
          // Its events: at most the 3 replayed ones, then a contiguous run of the order up to its end.
          #expect(
            isReplayThenSuffix(seen.events, of: order.events),
            "\(seen.events.suffix(5)) vs \(order.events.suffix(5))"
          )
        }
        for log in disposed.items {
          let seen = log.snapshot
          // An observer registered after the end gets it at once, before dispose() is called; one
          // disposed before the end gets none (FinishTests.disposeIsNotAnEnd): never more than one.
          #expect(seen.ends <= 1 && seen.afterEnd == 0, "at most one end, nothing after it")
        }
      }
    }
  }

  /// Whether `events` is a run of `order` (the replay of up to 3 events, then the live ones) that
  /// reaches `order`'s last event, or is empty/replay only when registered after the end.
  func isReplayThenSuffix(_ events: [Int], of order: [Int]) -> Bool {
    guard let first = events.first else { return true }
    guard let start = order.firstIndex(of: first) else { return false }
    return Array(order[start...]) == events
  }
}
