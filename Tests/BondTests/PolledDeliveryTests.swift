@testable import Bond
import Dispatch
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `deliverOn` on a `DedicatedThreadScheduler`: the ring the scheduler's thread polls
/// (`PolledDelivery`), with each wait strategy.
@Suite(.serialized) struct PolledDeliveryTests {
  static let strategies = DedicatedThreadSchedulerTests.strategies

  /// An event that counts the live copies of its payload.
  final class Tracked: Sendable {
    static let live = Atomic<Int>(0)
    let value: Int
    init(_ value: Int) {
      self.value = value
      Self.live.add(1, ordering: .relaxed)
    }
    deinit { Self.live.subtract(1, ordering: .relaxed) }
  }

  @Test func anUnboundedStageOnADedicatedThreadIsPolled() {
    let scheduler = DedicatedThreadScheduler(waitStrategy: .busySpin)
    let producer = EventProducer<Int>()
    #expect(producer.deliverOn(scheduler).observe { _ in } is StageHandle<PolledDelivery<Int>>)
    #expect(
      !(producer.deliverOn(scheduler, bufferLimit: 8, whenFull: .dropOldest).observe { _ in }
        is StageHandle<PolledDelivery<Int>>)
    )
    #expect(!(producer.deliverOn(DispatchQueue.global()).observe { _ in } is StageHandle<PolledDelivery<Int>>))
  }

  /// Across many segments (256 slots each), with the thread behind: every event, in order, on the
  /// scheduler's thread.
  @Test(arguments: strategies)
  func deliversEveryEventInOrderOnTheThread(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
    let producer = EventProducer<Int>()
    let log = Recorder<(Int, UInt)>()
    let observation = producer.deliverOn(scheduler).observe { log.add(($0, UInt(pthread_self()))) }
    let gate = DispatchSemaphore(value: 0)
    scheduler.schedule { gate.wait() }  // the thread is held while the ring fills
    for value in 0..<5_000 { producer.next(value) }
    gate.signal()
    for value in 5_000..<10_000 { producer.next(value) }
    #expect(waitUntil { log.items.count == 10_000 })
    #expect(log.items.map(\.0) == Array(0..<10_000))
    #expect(Set(log.items.map(\.1)) == [log.items[0].1])
    #expect(log.items[0].1 != UInt(pthread_self()))
    observation.dispose()
  }

  /// The thread caught up at every event (each delivered before the next is sent), across many
  /// segments: at each segment's end it finds the link to the next before the item in it.
  @Test(arguments: strategies)
  func caughtUpAcrossSegmentBoundaries(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    let observation = producer.deliverOn(scheduler).observe { log.add($0) }
    for value in 0..<2_000 {
      producer.next(value)
      guard waitUntil({ log.items.count == value + 1 }) else { break }
    }
    #expect(log.items == Array(0..<2_000))
    observation.dispose()
  }

  /// A disposed stage lets its scheduler go: the thread stops once the scheduler is released.
  @Test(arguments: strategies)
  func aDisposedStageLetsTheThreadStop(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    weak var core: DedicatedThreadLoop?
    do {
      let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
      core = scheduler.core
      let producer = EventProducer<Int>()
      let log = Recorder<Int>()
      let observation = producer.deliverOn(scheduler).observe { log.add($0) }
      for value in 0..<1_000 { producer.next(value) }
      #expect(waitUntil { log.items.count == 1_000 })
      observation.dispose()
    }
    #expect(waitUntil { core == nil }, "the thread stopped and let its core go")
  }

  /// The replay first, then `registered`, then the later events, then the end (after which the
  /// observation is over), all on the scheduler's thread.
  @Test(arguments: strategies)
  func replayRegisteredEventsAndEndInOrder(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    producer.next(3)
    let log = Recorder<String>()
    let observation = producer.deliverOn(scheduler).observe(
      with: EventObserver(
        { log.add("\($0)") },
        finished: { log.add("end") },
        registered: { log.add("registered") }
      )
    )
    producer.next(4)
    producer.finish()
    #expect(waitUntil { log.items.count == 5 })
    #expect(log.items == ["2", "3", "registered", "4", "end"])
    #expect(waitUntil { observation.isDisposed })
  }

  /// An action scheduled after an event was sent runs after that event is delivered.
  @Test(arguments: strategies)
  func anActionScheduledAfterAnEventRunsAfterIt(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = producer.deliverOn(scheduler).observe { log.add("event \($0)") }
    for round in 0..<200 {
      producer.next(round)
      scheduler.schedule { log.add("action \(round)") }
    }
    #expect(waitUntil { log.items.count == 400 })
    let items = log.items
    let late = (0..<200).filter { round in
      (items.firstIndex(of: "event \(round)") ?? .max) > (items.firstIndex(of: "action \(round)") ?? -1)
    }
    #expect(late.isEmpty, "actions that ran before the event sent before them")
    observation.dispose()
  }

  /// A parked thread (no spinning at all) wakes for each event sent long after the last one.
  @Test func aParkedThreadWakesForEachEvent() {
    let scheduler = DedicatedThreadScheduler(waitStrategy: .spinThenPark(spins: 0))
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    let observation = producer.deliverOn(scheduler).observe { log.add($0) }
    for value in 0..<20 {
      producer.next(value)
      // Each event is sent once the previous one was delivered: the thread has nothing to do, and parks.
      #expect(waitUntil { log.items.count == value + 1 })
    }
    #expect(log.items == Array(0..<20))
    observation.dispose()
  }

  /// A dispose() from inside a delivery stops the stage at once: the waiting events are never
  /// delivered, and they and the observer are released when that delivery returns.
  @Test(arguments: strategies)
  func disposeFromInsideADeliveryStopsAtOnce(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
    let producer = EventProducer<Tracked>()
    let log = Recorder<Int>()
    let observation = SerialDisposable()
    let gate = DispatchSemaphore(value: 0)
    scheduler.schedule { gate.wait() }
    observation.otherDisposable = producer.deliverOn(scheduler).observe { event in
      log.add(event.value)
      if event.value == 10 { observation.dispose() }
    }
    for value in 0..<1_000 { producer.next(Tracked(value)) }
    gate.signal()
    #expect(waitUntil { Tracked.live.load(ordering: .relaxed) == 0 })
    #expect(log.items == Array(0...10))
  }

  /// A dispose() while the thread is elsewhere releases the waiting events and the observer before
  /// it returns, and nothing is delivered after.
  @Test(arguments: strategies)
  func disposeWhileIdleReleasesAtOnce(_ strategy: DedicatedThreadScheduler.WaitStrategy) {
    let scheduler = DedicatedThreadScheduler(waitStrategy: strategy)
    let producer = EventProducer<Tracked>()
    final class Owner: Sendable {}
    weak var weakOwner: Owner?
    let log = Recorder<Int>()
    let gate = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    let observation: any DisposableType
    do {
      let owner = Owner()
      weakOwner = owner
      observation = producer.deliverOn(scheduler).observe { event in
        _ = owner
        log.add(event.value)
      }
    }
    scheduler.schedule {
      started.signal()
      gate.wait()
    }
    started.wait()
    for value in 0..<600 { producer.next(Tracked(value)) }
    #expect(Tracked.live.load(ordering: .relaxed) == 600)
    observation.dispose()
    #expect(Tracked.live.load(ordering: .relaxed) == 0, "released before dispose() returned")
    #expect(weakOwner == nil)
    #expect(observation.isDisposed)
    gate.signal()
    let done = DispatchSemaphore(value: 0)
    scheduler.schedule { done.signal() }
    done.wait()
    #expect(log.items.isEmpty)
  }
}
