@testable import Bond
import BondTesting
import Dispatch
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `DedicatedThreadScheduler`: one thread, actions in order, timers by deadline, each wait strategy.
@Suite(.serialized) struct DedicatedThreadSchedulerTests {
  static let strategies: [DedicatedThreadScheduler.WaitStrategy] = [
    .busySpin, .yield, .spinThenPark(), .spinThenPark(spins: 0),
  ]

  @Test(arguments: strategies)
  func runsTheActionsInOrderOnItsOwnThread(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
    let log = Recorder<(Int, UInt)>()
    for value in 0..<1_000 {
      scheduler.schedule { log.add((value, UInt(pthread_self()))) }
    }
    #expect(waitUntil { log.items.count == 1_000 })
    #expect(log.items.map(\.0) == Array(0..<1_000))
    #expect(Set(log.items.map(\.1)).count == 1, "one thread")
    #expect(log.items.first?.1 != UInt(pthread_self()))
  }

  @Test(arguments: strategies)
  func timersRunByDeadlineAndACancelledOneNever(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
    let log = Recorder<String>()
    scheduler.schedule(after: 0.03) { log.add("30 ms") }
    scheduler.schedule(after: 0.01) { log.add("10 ms") }
    let cancelled = scheduler.schedule(after: 0.02) { log.add("cancelled") }
    scheduler.schedule(after: 0.01) { log.add("10 ms, second") }
    scheduler.schedule { log.add("now") }
    cancelled.dispose()
    // A timer due after the cancelled one: once it has run, the cancelled one would have too.
    scheduler.schedule(after: 0.05) { log.add("50 ms") }
    #expect(waitUntil { log.items.count == 5 })
    #expect(log.items == ["now", "10 ms", "10 ms, second", "30 ms", "50 ms"])
  }

  @Test func aTimerIsNotRunBeforeItsDeadline() {
    let scheduler = DedicatedThreadScheduler()
    let start = scheduler.now
    let ranAt = Recorder<Double>()
    scheduler.schedule(after: 0.02) { ranAt.add(scheduler.now) }
    #expect(waitUntil { ranAt.items.count == 1 })
    #expect(ranAt.items[0] - start >= 0.02)
  }

  /// A parked thread wakes for each sparse action (no lost wake-up).
  @Test func aParkedThreadWakesForEachAction() {
    let scheduler = DedicatedThreadScheduler(waitStrategy: .spinThenPark(spins: 0))
    let log = Recorder<Int>()
    for value in 0..<20 {
      scheduler.schedule { log.add(value) }
      // Each action is scheduled once the previous one ran: the thread has nothing to do, and parks.
      #expect(waitUntil { log.items.count == value + 1 })
    }
    #expect(log.items == Array(0..<20))
  }

  @Test func deliverOnItDeliversEveryEventInOrder() {
    let scheduler = DedicatedThreadScheduler(waitStrategy: .busySpin)
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    let observation = producer.deliverOn(scheduler).observe { log.add($0) }
    for value in 0..<10_000 { producer.next(value) }
    #expect(waitUntil { log.items.count == 10_000 })
    #expect(log.items == Array(0..<10_000))
    observation.dispose()
  }

  /// Releasing the scheduler stops its thread, after the actions already scheduled.
  @Test(arguments: strategies)
  func releasingTheSchedulerStopsItsThread(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    weak var core: DedicatedThreadLoop?
    let log = Recorder<Int>()
    do {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      core = scheduler.core
      for value in 0..<100 { scheduler.schedule { log.add(value) } }
      scheduler.schedule(after: 60) { log.add(-1) }  // not due: dropped with the thread
    }
    #expect(waitUntil { core == nil }, "the thread exited and let its core go")
    #expect(log.items == Array(0..<100))
  }

  @Test func negativeSpinsStop() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = DedicatedThreadScheduler(waitStrategy: .spinThenPark(spins: -1))
    }
    #expect(
      exitTestStandardError(result).contains("DedicatedThreadScheduler(waitStrategy:): spins must be 0 or more, got -1")
    )
  }

  @Test func aNegativeDelayStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      DedicatedThreadScheduler().schedule(after: -1) {}
    }
    #expect(
      exitTestStandardError(result).contains(
        "DedicatedThreadScheduler.schedule(after:_:): seconds must be 0 or more, got -1"
      )
    )
  }
}
