import Foundation
import Testing
@testable import Bond

// Issue 12: the pipeline stages under concurrent senders.
// Run under `swift test --scratch-path .build-tsan --sanitize=thread --filter PipelineStagesStressTests`.

private final class Collected<T>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [T] = []
  func add(_ item: T) {
    lock.lock()
    stored.append(item)
    lock.unlock()
  }
  func add(contentsOf items: [T]) {
    lock.lock()
    stored.append(contentsOf: items)
    lock.unlock()
  }
  var items: [T] {
    lock.lock()
    defer { lock.unlock() }
    return stored
  }
}

/// A two-party barrier with a timeout: `arrive` returns whether the other party arrived in time.
private final class TwoPartyBarrier: @unchecked Sendable {
  private let condition = NSCondition()
  private var arrived = 0
  func arrive(timeout: Double) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    arrived += 1
    condition.broadcast()
    let deadline = Date(timeIntervalSinceNow: timeout)
    while arrived < 2 {
      if !condition.wait(until: deadline) { return false }
    }
    return true
  }
}

@Suite struct PipelineStagesStressTests {
  @Test func batchesFromFourSenders() {
    withWatchdog("batchesFromFourSenders", seconds: 60) {
      let senders = 4
      let perSender = 5_000
      let maxCount = 64
      let source = EventProducer<Int>()
      let queue = DispatchQueue(label: "stress.batches")
      let events = Collected<Int>()
      let sizes = Collected<Int>()
      let done = DispatchSemaphore(value: 0)
      source.batches(on: queue, maxCount: maxCount).observe { batch in
        sizes.add(batch.count)
        events.add(contentsOf: batch)
      } finished: {
        done.signal()
      }
      DispatchQueue.concurrentPerform(iterations: senders) { sender in
        for index in 0..<perSender { source.next(sender * perSender + index) }
      }
      source.finish()
      #expect(done.wait(timeout: .now() + 30) == .success)
      let items = events.items
      #expect(items.sorted() == Array(0..<senders * perSender))
      #expect(sizes.items.allSatisfy { $0 >= 1 && $0 <= maxCount })
      for sender in 0..<senders {
        let own = items.filter { $0 / perSender == sender }
        #expect(own == own.sorted())
      }
    }
  }

  /// Bounded lanes under four senders and slow lanes: no event delivered twice or out of its
  /// sender's order per key, every event either delivered or counted as dropped, the end delivered.
  @Test(arguments: [DeliveryOverflowPolicy.dropOldest, .dropNewest])
  func boundedPartitionFromFourSendersDropsOrDeliversEachEventOnce(policy: DeliveryOverflowPolicy) {
    withWatchdog("boundedPartitionFromFourSenders", seconds: 60) {
      let drops = DeliveryStatistics()
      let run = PartitionRun { source in
        source.partition(lanes: 2, bufferLimit: 8, whenFull: policy, statistics: drops) { $0 % PartitionRun.keys }
      } onEvent: { _, value in
        if value % 64 == 0 { usleep(50) }  // slower than the senders now and then: buffers fill
      }
      let values = run.items.map(\.value)
      #expect(Set(values).count == values.count, "no event delivered twice")
      #expect(values.count + drops.droppedCount == PartitionRun.total, "each event delivered or dropped")
      #expect(drops.droppedCount > 0, "the buffers filled")
    }
  }

  @Test func partitionFromFourSendersRunsLanesInParallel() {
    withWatchdog("partitionFromFourSendersRunsLanesInParallel", seconds: 60) {
      let barrier = TwoPartyBarrier()
      let metInParallel = Collected<Bool>()
      let seenByLane = [Counter(), Counter()]
      let run = PartitionRun { source in
        source.partition(lanes: 2) { $0 % PartitionRun.keys }
      } onEvent: { lane, _ in
        // Each lane's first event waits for the other lane's: both run at the same time. (A lane's
        // deliveries are serial: its counter is read and written by one delivery at a time.)
        if seenByLane[lane].count == 0 { metInParallel.add(barrier.arrive(timeout: 10)) }
        seenByLane[lane].increment()
      }
      #expect(metInParallel.items == [true, true])
      #expect(run.items.map(\.value).sorted() == Array(0..<PartitionRun.total))
    }
  }
}

/// Four senders feed a 2-lane partition of 16 keys, then end it; the lanes' deliveries are
/// recorded. Checks what every partition keeps: the end reaches both lanes, each key stays in one
/// lane, and each sender's events of a key keep their order.
private struct PartitionRun {
  static let senders = 4
  static let perSender = 2_000
  static let keys = 16
  static var total: Int { senders * perSender }
  let items: [(lane: Int, value: Int)]

  init(
    _ makePartition: (EventProducer<Int>) -> Partition<Int>,
    onEvent: @escaping @Sendable (_ lane: Int, _ value: Int) -> Void
  ) {
    let source = EventProducer<Int>()
    let partition = makePartition(source)
    let seen = Collected<(lane: Int, value: Int)>()
    let ends = DispatchSemaphore(value: 0)
    for (index, lane) in partition.lanes.enumerated() {
      lane.observe { value in
        onEvent(index, value)
        seen.add((index, value))
      } finished: {
        ends.signal()
      }
    }
    DispatchQueue.concurrentPerform(iterations: Self.senders) { sender in
      for index in 0..<Self.perSender { source.next(sender * Self.perSender + index) }
    }
    source.finish()
    #expect((0..<2).allSatisfy { _ in ends.wait(timeout: .now() + 30) == .success })
    items = seen.items
    for key in 0..<Self.keys {
      let forKey = items.filter { $0.value % Self.keys == key }
      #expect(Set(forKey.map(\.lane)).count <= 1)
      for sender in 0..<Self.senders {
        let own = forKey.map(\.value).filter { $0 / Self.perSender == sender }
        #expect(own == own.sorted())
      }
    }
  }
}
