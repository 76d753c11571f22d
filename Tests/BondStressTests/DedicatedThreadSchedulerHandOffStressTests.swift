import Foundation
import Synchronization
import Testing
@testable import Bond

// The hand-off of DedicatedThreadScheduler (DedicatedThreadLoop) under several senders: deliveries
// and actions from four threads, the scheduler released while threads schedule, stages disposed
// under a flood. Every action runs exactly once, none after the scheduler stopped, nothing is leaked.
// Run under `swift test --scratch-path .build-tsan --sanitize=thread --filter DedicatedThreadScheduler`.
// Serialized for the same reason as DedicatedThreadSchedulerStressTests.

@Suite(.serialized) struct DedicatedThreadSchedulerHandOffStressTests {
  static let strategies = DedicatedThreadSchedulerStressTests.strategies

  /// Three unbounded `deliverOn` stages and plain actions on one scheduler, fed by four threads:
  /// every event arrives exactly once, each thread's in order, one delivery at a time per stage.
  @Test(arguments: strategies)
  func stagesFloodedFromFourThreads(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("handOffStages", seconds: 120) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      let perThread = 5_000 * stressScale
      let producers = (0..<3).map { _ in EventProducer<(thread: Int, value: Int)>() }
      let logs = (0..<3).map { _ in PerThreadOrderLog() }
      let overlaps = (0..<3).map { _ in OverlapDetector() }
      let received = Counter()
      let actions = Counter()
      let observations = (0..<3).map { stage in
        producers[stage].deliverOn(scheduler).observe { event in
          overlaps[stage].enter()
          logs[stage].record(event.value, from: event.thread)
          overlaps[stage].leave()
          received.increment()
        }
      }
      runTogether(threads: 4) { thread in
        for value in 0..<perThread {
          producers[value % 3].next((thread, value / 3))
          if value % 3 == 0 { scheduler.schedule { actions.increment() } }
          if value % 1_000 == 0 { usleep(UInt32(thread * 20)) }  // lets a parking thread park
        }
      }
      #expect(waitUntil { received.count == 4 * perThread && actions.count == 4 * ((perThread + 2) / 3) })
      let outOfOrder = LockedState<Int?>(nil)  // read on the scheduler's thread, after every delivery
      scheduler.schedule { outOfOrder.withLock { $0 = logs.map(\.outOfOrder).reduce(0, +) } }
      #expect(waitUntil { outOfOrder.withLock { $0 } != nil })
      #expect(outOfOrder.withLock { $0 } == 0)
      #expect(overlaps.map(\.count) == [0, 0, 0])
      usleep(10_000)
      #expect(received.count == 4 * perThread, "none twice")
      observations.forEach { $0.dispose() }
    }
  }

  /// The scheduler released while four threads schedule (its last reference dropped on whichever
  /// thread ends last, or inside an action on its own thread): every action scheduled runs exactly
  /// once, the thread stops, and nothing runs after.
  @Test(arguments: strategies)
  func releasedWhileThreadsSchedule(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("handOffRelease", seconds: 120) {
      for round in 0..<(20 * stressScale) {
        weak var core: DedicatedThreadLoop?
        let actions = Counter()
        let events = Counter()
        let perThread = 500
        do {
          let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
          core = scheduler.core
          let producer = EventProducer<Int>()
          let observation = producer.deliverOn(scheduler).observe { _ in events.increment() }
          runTogether(threads: 4) { [scheduler] thread in
            for value in 0..<perThread {
              if value % 2 == 0 { scheduler.schedule { actions.increment() } } else { producer.next(value) }
            }
            if thread == 0 {
              observation.dispose()  // the stage's last events may be dropped from here on
            }
          }
          if round % 2 == 0 {
            // The last reference goes with an action, on the scheduler's own thread.
            scheduler.schedule { [scheduler] in _ = scheduler }
          }
        }
        #expect(waitUntil { core == nil }, "the thread stopped and let its core go")
        #expect(actions.count == 4 * perThread / 2, "every action scheduled ran, once")
        #expect(events.count <= 4 * perThread / 2, "no event twice")
        let afterStop = (actions.count, events.count)
        usleep(2_000)
        #expect(actions.count == afterStop.0 && events.count == afterStop.1, "nothing ran after the stop")
      }
    }
  }

  /// Stages disposed from another thread while four threads flood them: after `dispose()` returns
  /// at most the delivery in hand completes, and each stage lets its observer go.
  @Test(arguments: strategies)
  func stagesDisposedUnderAFlood(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("handOffDispose", seconds: 120) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      final class Token: Sendable {}
      for _ in 0..<(20 * stressScale) {
        let producer = EventProducer<Int>()
        let received = Counter()
        weak var weakToken: Token?
        let observation: any DisposableType
        do {
          let token = Token()
          weakToken = token
          observation = producer.deliverOn(scheduler).observe { _ in
            _ = token
            received.increment()
          }
        }
        let atDispose = Locked<Int?>(nil)
        runTogether(threads: 5) { thread in
          if thread == 4 {
            while received.count < 200 { usleep(50) }
            observation.dispose()
            atDispose.withLock { $0 = received.count }
          } else {
            for value in 0..<2_000 { producer.next(value) }
          }
        }
        let disposedAt = atDispose.withLock { $0 } ?? 0
        #expect(waitUntil { weakToken == nil }, "the observer was released")
        #expect(received.count <= disposedAt + 1, "at most the delivery in hand after dispose()")
      }
    }
  }
}
