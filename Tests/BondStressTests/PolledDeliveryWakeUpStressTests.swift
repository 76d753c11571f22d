import Foundation
import Synchronization
import Testing
@testable import Bond

// The two moments where a polled ring (`deliverOn` on a DedicatedThreadScheduler) could lose an
// event: a stage newly registered with a thread that is busy polling others (the pick-up), and a
// thread that has parked (the wake-up). Each round sends one event and waits for that event's
// delivery, 10,000 rounds per test (shared among its arguments), while another thread floods a
// different producer. Nothing here is
// timed: a round that waits for 60 s is recorded as lost (a lost pick-up or wake-up would wait for
// ever), and the watchdog bounds the whole test. Run under `swift test --scratch-path .build-tsan
// --sanitize=thread --filter PolledDeliveryWakeUp --no-parallel`. Serialized: each test owns a
// spinning thread.

@Suite(.serialized) struct PolledDeliveryWakeUpStressTests {
  /// Rounds per test, shared among its arguments.
  static let rounds = 10_000 * stressScale

  /// Waits for `condition`, yielding the core between checks (the outcome usually comes within
  /// microseconds: a sleep per check would make 10,000 rounds take minutes). `false` after `seconds`.
  static func wait(seconds: Double = 60, _ condition: () -> Bool) -> Bool {
    var checks = 0
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      checks += 1
      if checks < 1_000 {
        sched_yield()
        continue
      }
      if Date() > deadline { return false }
      usleep(50)
    }
    return true
  }

  /// Floods `producer` from the calling thread until `running` is cleared, never more than 100,000
  /// events ahead of `delivered` (so that an unbounded ring behind it stays small).
  static func flood(_ producer: EventProducer<Int>, delivered: Counter, while running: borrowing Atomic<Bool>) {
    var sent = 0
    while running.load(ordering: .relaxed) {
      if sent - delivered.count > 100_000 {
        sched_yield()
        continue
      }
      producer.next(sent)
      sent += 1
    }
  }

  /// The pick-up: each round registers a new stage while the thread polls a flooded one, and sends
  /// it one event, which must be delivered (every wait strategy).
  @Test(arguments: PolledDeliveryStressTests.strategies)
  func aNewStageReceivesItsFirstEvent(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    withWatchdog("polledPickUp", seconds: 600) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      let flooded = EventProducer<Int>()
      let floodDelivered = Counter()
      let floodObservation = flooded.deliverOn(scheduler).observe { _ in floodDelivered.increment() }
      let running = Atomic<Bool>(true)
      let lost = Locked<[Int]>([])
      runTogether(threads: 2) { thread in
        if thread == 0 {
          Self.flood(flooded, delivered: floodDelivered, while: running)
          return
        }
        defer { running.store(false, ordering: .relaxed) }
        for round in 0..<(Self.rounds / PolledDeliveryStressTests.strategies.count) {
          let producer = EventProducer<Int>()
          let received = Atomic<Int>(-1)
          let observation = producer.deliverOn(scheduler).observe { received.store($0, ordering: .releasing) }
          producer.next(round)
          let delivered = Self.wait { received.load(ordering: .acquiring) == round }
          observation.dispose()
          if !delivered {
            lost.withLock { $0.append(round) }
            return
          }
        }
      }
      #expect(lost.withLock { $0 } == [], "a new stage's first event was never delivered")
      #expect(floodDelivered.count > 0, "the flooded stage delivered")
      floodObservation.dispose()
    }
  }

  /// The wake-up: each round waits until the thread has parked, then sends one event, which must be
  /// delivered; every other round the event goes to a stage registered while the thread was parked.
  /// Another thread floods a producer that this scheduler does not serve.
  @Test(arguments: [0, 1_000])
  func aParkedThreadWakesForEveryEvent(spins: Int) {
    withWatchdog("polledWakeUp", seconds: 600) {
      let scheduler = DedicatedThreadScheduler(waitStrategy: .spinThenPark(spins: spins))
      let producer = EventProducer<Int>()
      let received = Atomic<Int>(-1)
      let observation = producer.deliverOn(scheduler).observe { received.store($0, ordering: .releasing) }
      let flooded = EventProducer<Int>()
      let floodDelivered = Counter()
      flooded.observe { _ in floodDelivered.increment() }
      let running = Atomic<Bool>(true)
      let lost = Locked<[Int]>([])
      let neverParked = Atomic<Bool>(false)
      runTogether(threads: 2) { thread in
        if thread == 0 {
          Self.flood(flooded, delivered: floodDelivered, while: running)
          return
        }
        defer { running.store(false, ordering: .relaxed) }
        for round in 0..<(Self.rounds / 2) {
          guard Self.wait(seconds: 600, { scheduler.core.isParked }) else {
            neverParked.store(true, ordering: .relaxed)
            return
          }
          let delivered: Bool
          if round % 2 == 0 {
            producer.next(round)
            delivered = Self.wait { received.load(ordering: .acquiring) == round }
          } else {
            let fresh = EventProducer<Int>()
            let freshReceived = Atomic<Int>(-1)
            let freshObservation = fresh.deliverOn(scheduler).observe {
              freshReceived.store($0, ordering: .releasing)
            }
            fresh.next(round)
            delivered = Self.wait { freshReceived.load(ordering: .acquiring) == round }
            freshObservation.dispose()
          }
          if !delivered {
            lost.withLock { $0.append(round) }
            return
          }
        }
      }
      let parkedEachRound = !neverParked.load(ordering: .relaxed)
      #expect(parkedEachRound, "the thread parked before each round")
      #expect(lost.withLock { $0 } == [], "an event sent to a parked thread was never delivered")
      observation.dispose()
    }
  }
}
