import Foundation
import Synchronization
import Testing
@testable import Bond

// The ring a DedicatedThreadScheduler's thread polls (`deliverOn` on it: PolledDelivery) under
// flooding threads: no wake-up lost when the thread parks between sparse events, events released
// when a dispose() races the senders and the thread, the end racing a dispose(), a dispose() from
// inside a delivery. Run under `swift test --scratch-path .build-tsan --sanitize=thread --filter
// PolledDelivery`. Serialized: each test owns a spinning thread.

@Suite(.serialized) struct PolledDeliveryStressTests {
  static let strategies = DedicatedThreadSchedulerStressTests.strategies

  /// An event that counts its live instances.
  final class Tracked: Sendable {
    static let live = Atomic<Int>(0)
    init() { Self.live.add(1, ordering: .relaxed) }
    deinit { Self.live.subtract(1, ordering: .relaxed) }
  }

  /// A thread that parks at once (no spins) and two senders with pauses of random length between
  /// events: every event arrives (a lost wake-up would leave one waiting until the watchdog).
  @Test func noWakeUpIsLostWhenTheThreadParks() {
    withWatchdog("polledParking", seconds: 120) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: .spinThenPark(spins: 0))
      let producer = EventProducer<Int>()
      let received = Counter()
      let observation = producer.deliverOn(scheduler).observe { _ in received.increment() }
      let perThread = 2_000 * stressScale
      runTogether(threads: 2) { thread in
        for value in 0..<perThread {
          producer.next(value)
          if value % 4 == thread { usleep(UInt32.random(in: 0...40)) }
          // Each event waits to be delivered now and then: the thread is idle, then parks.
          if value % 64 == 0 { _ = waitUntil(seconds: 30) { received.count > value } }
        }
      }
      #expect(waitUntil { received.count == 2 * perThread })
      observation.dispose()
    }
  }

  /// Stages disposed at a random moment while three threads flood them and the thread delivers:
  /// every event is released (none leaks in the ring), the observer too, and nothing is delivered
  /// after the delivery in hand.
  @Test(arguments: strategies)
  func disposeRacingSendersReleasesEverything(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("polledDispose", seconds: 120) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      for round in 0..<(40 * stressScale) {
        let producer = EventProducer<Tracked>()
        let received = Counter()
        final class Owner: Sendable {}
        weak var weakOwner: Owner?
        let observation: any DisposableType
        do {
          let owner = Owner()
          weakOwner = owner
          observation = producer.deliverOn(scheduler).observe { _ in
            _ = owner
            received.increment()
          }
        }
        let atDispose = Locked<Int?>(nil)
        runTogether(threads: 4) { thread in
          if thread == 3 {
            usleep(UInt32(round % 8) * 100)
            observation.dispose()
            atDispose.withLock { $0 = received.count }
          } else {
            for _ in 0..<1_000 { producer.next(Tracked()) }
          }
        }
        #expect(waitUntil { weakOwner == nil }, "the observer was released")
        #expect(received.count <= (atDispose.withLock { $0 } ?? 0) + 1, "at most the delivery in hand")
        // With the disposable still held: an event a sender handed over while dispose() ran goes too.
        #expect(waitUntil { Tracked.live.load(ordering: .relaxed) == 0 }, "no event left in the ring")
        withExtendedLifetime(observation) {}
      }
    }
  }

  /// One thread sends without pause while another observes and disposes stages over and over:
  /// each observation receives events (the test waits for its first delivery, bounded only by the
  /// watchdog: a stage the thread never picked up would hang it), once each and in order, until its
  /// dispose; `observe` and `dispose()` return while the flood goes on, and every observer is
  /// released. It asserts outcomes only: how many events a stage receives before its dispose
  /// depends on how the cores are shared, and is not checked.
  @Test(arguments: strategies)
  func observeAndDisposeChurnUnderAFlood(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("polledChurn", seconds: 120) {
      final class Owner: Sendable {
        static let live = Atomic<Int>(0)
        init() { Self.live.add(1, ordering: .relaxed) }
        deinit { Self.live.subtract(1, ordering: .relaxed) }
      }
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      let producer = EventProducer<Int>()
      let flooding = Atomic<Bool>(true)
      let tally = Locked<(gaps: Int, starved: Int)>((0, 0))
      runTogether(threads: 2) { thread in
        if thread == 0 {
          var value = 0
          while flooding.load(ordering: .relaxed) {
            producer.next(value)
            value += 1
          }
          return
        }
        for _ in 0..<(200 * stressScale) {
          let log = Recorder<Int>()
          let owner = Owner()
          let observation = producer.deliverOn(scheduler).observe { value in
            _ = owner
            log.add(value)
          }
          let started = waitUntil(seconds: 60) { log.count > 0 }
          observation.dispose()
          let values = log.items
          let gap = zip(values, values.dropFirst()).contains { $1 != $0 + 1 }
          tally.withLock { $0 = ($0.gaps + (gap ? 1 : 0), $0.starved + (started ? 0 : 1)) }
        }
        flooding.store(false, ordering: .relaxed)
      }
      let (gaps, starved) = tally.withLock { $0 }
      #expect(gaps == 0, "an observation missed, repeated or reordered an event")
      #expect(starved == 0, "an observation received nothing in 60 s while the flood went on")
      #expect(waitUntil { Owner.live.load(ordering: .relaxed) == 0 }, "every observer was released")
    }
  }

  /// The upstream's end racing a dispose() from another thread, after a flood: `finished` is
  /// called at most once, after every event it follows, and the stage is over either way.
  @Test(arguments: strategies)
  func endRacingDispose(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("polledEnd", seconds: 120) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      for round in 0..<(100 * stressScale) {
        let producer = EventProducer<Int>()
        let received = Counter()
        let ends = Locked<[Int]>([])
        let observation = producer.deliverOn(scheduler).observe { _ in
          received.increment()
        } finished: {
          ends.withLock { $0.append(received.count) }
        }
        runTogether(threads: 2) { thread in
          if thread == 0 {
            for value in 0..<300 { producer.next(value) }
            producer.finish()
          } else {
            usleep(UInt32(round % 10) * 20)
            observation.dispose()
          }
        }
        #expect(waitUntil { observation.isDisposed })
        let seen = ends.withLock { $0 }
        #expect(seen.count <= 1, "finished at most once")
        if let count = seen.first { #expect(count == 300, "the end after every event") }
      }
    }
  }

  /// An observer that disposes its own observation while three threads flood it: nothing is
  /// delivered after that delivery, and every waiting event is released.
  @Test(arguments: strategies)
  func disposeFromInsideADeliveryUnderAFlood(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("polledSelfDispose", seconds: 120) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      for _ in 0..<(20 * stressScale) {
        let producer = EventProducer<Tracked>()
        let received = Counter()
        let afterDispose = Counter()
        let disposed = Atomic<Bool>(false)
        let observation = SerialDisposable()
        observation.otherDisposable = producer.deliverOn(scheduler).observe { _ in
          if disposed.load(ordering: .relaxed) { afterDispose.increment() }
          received.increment()
          if received.count == 500 {
            observation.dispose()
            disposed.store(true, ordering: .relaxed)
          }
        }
        runTogether(threads: 3) { _ in
          for _ in 0..<1_000 { producer.next(Tracked()) }
        }
        #expect(waitUntil { received.count >= 500 })
        usleep(1_000)
        #expect(afterDispose.count == 0)
        #expect(received.count == 500)
      }
      #expect(waitUntil { Tracked.live.load(ordering: .relaxed) == 0 }, "no event left in a ring")
    }
  }
}
