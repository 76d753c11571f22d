import Foundation
import Synchronization
import Testing
@testable import Bond

// The dedicated-thread scheduler handing off with each wait strategy: four threads schedule at
// once, with pauses that let a parking thread park between bursts (the wake-up race), and a
// `deliverOn` stage on it under a flood.
// Run under `swift test --scratch-path .build-tsan --sanitize=thread --filter DedicatedThreadSchedulerStressTests`.
// Serialized: a `.busySpin` or `.yield` scheduler keeps a core busy for its life, and several at once
// on a 2-core machine under ThreadSanitizer starve the suites running beside them.

@Suite(.serialized) struct DedicatedThreadSchedulerStressTests {
  static let strategies: [DedicatedThreadScheduler.WaitStrategy] = [
    .busySpin, .yield, .spinThenPark(), .spinThenPark(spins: 0),
  ]

  /// Every action runs once, each thread's in its order, one at a time.
  @Test(arguments: strategies)
  func fourThreadsScheduleAtOnce(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("dedicatedScheduler", seconds: 120) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      let perThread = 5_000 * stressScale
      let log = PerThreadOrderLog()
      let overlap = OverlapDetector()
      let ran = Counter()
      runTogether(threads: 4) { thread in
        for value in 0..<perThread {
          scheduler.schedule {
            overlap.enter()
            log.record(value, from: thread)
            overlap.leave()
            ran.increment()
          }
          // Pauses now and then, so that a parking thread parks between bursts.
          if value % 500 == 0 { usleep(UInt32(thread * 50)) }
        }
      }
      #expect(waitUntil { ran.count == 4 * perThread })
      // Read on the scheduler's thread, after every action, and published through a lock.
      let outOfOrder = LockedState<Int?>(nil)
      scheduler.schedule { outOfOrder.withLock { $0 = log.outOfOrder } }
      #expect(waitUntil { outOfOrder.withLock { $0 } != nil })
      #expect(outOfOrder.withLock { $0 } == 0)
      #expect(overlap.count == 0)
    }
  }

  /// Timers scheduled from four threads while actions flood: each runs once, none before its time;
  /// half of them are cancelled from another thread and never run.
  @Test(arguments: strategies)
  func timersAndCancellationsRacingAFlood(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("dedicatedSchedulerTimers", seconds: 120) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      let perThread = 200 * stressScale
      let fired = Counter()
      let early = Counter()
      let cancelledRan = Counter()
      let actions = Counter()
      runTogether(threads: 4) { thread in
        for value in 0..<perThread {
          let due = scheduler.now + 0.002
          // Set once the cancel has returned before the deadline: a timer cannot start before
          // its deadline, so from then on it must never run. (A cancel that a stall delays past
          // the deadline may come after the timer started, which it cannot stop: not counted.)
          let cancelledInTime = CancelledFlag()
          let timer = scheduler.schedule(after: 0.002) {
            if scheduler.now < due { early.increment() }
            if value % 2 == 0 {
              fired.increment()
            } else if cancelledInTime.value.load(ordering: .acquiring) {
              cancelledRan.increment()
            }
          }
          if value % 2 == 1 {
            timer.dispose()
            if scheduler.now < due { cancelledInTime.value.store(true, ordering: .releasing) }
          }
          scheduler.schedule { actions.increment() }
        }
      }
      #expect(waitUntil { fired.count == 2 * perThread && actions.count == 4 * perThread })
      usleep(20_000)
      #expect(early.count == 0)
      #expect(cancelledRan.count == 0)
    }
  }

  /// A `deliverOn` stage on the scheduler under four flooding threads, bounded with backpressure.
  @Test(arguments: strategies)
  func deliverOnUnderAFlood(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("dedicatedSchedulerDeliverOn", seconds: 120) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      let producer = EventProducer<Int>()
      let perThread = 10_000 * stressScale
      let received = Counter()
      let overlap = OverlapDetector()
      let observation = producer.deliverOn(scheduler, bufferLimit: 1_024, whenFull: .backpressure).observe { _ in
        overlap.enter()
        overlap.leave()
        received.increment()
      }
      runTogether(threads: 4) { _ in
        for value in 0..<perThread { producer.next(value) }
      }
      #expect(waitUntil { received.count == 4 * perThread })
      #expect(overlap.count == 0)
      observation.dispose()
    }
  }
}

/// Each thread's values in the order they arrive, to count those out of order: touched only on a
/// scheduler's thread, one call at a time (an overlap detector beside it checks that).
final class PerThreadOrderLog: @unchecked Sendable {
  var next = [Int](repeating: 0, count: 4)
  var outOfOrder = 0

  func record(_ value: Int, from thread: Int) {
    if next[thread] != value { outOfOrder += 1 }
    next[thread] = value + 1
  }
}

/// Whether a timer's cancel returned before its deadline.
private final class CancelledFlag: Sendable {
  let value = Atomic<Bool>(false)
}
