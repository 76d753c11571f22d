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
      let senders = 4
      let perSender = 2_000
      let keys = 16
      let source = EventProducer<Int>()
      let drops = DeliveryStatistics()
      let partition = source.partition(lanes: 2, bufferLimit: 8, whenFull: policy, statistics: drops) { $0 % keys }
      let seen = Collected<(lane: Int, value: Int)>()
      let ends = DispatchSemaphore(value: 0)
      for (index, lane) in partition.lanes.enumerated() {
        lane.observe { value in
          if value % 64 == 0 { usleep(50) }  // slower than the senders now and then: buffers fill
          seen.add((index, value))
        } finished: {
          ends.signal()
        }
      }
      DispatchQueue.concurrentPerform(iterations: senders) { sender in
        for index in 0..<perSender { source.next(sender * perSender + index) }
      }
      source.finish()
      #expect((0..<2).allSatisfy { _ in ends.wait(timeout: .now() + 30) == .success })
      let items = seen.items
      let values = items.map(\.value)
      #expect(Set(values).count == values.count, "no event delivered twice")
      #expect(values.count + drops.droppedCount == senders * perSender, "each event delivered or dropped")
      #expect(drops.droppedCount > 0, "the buffers filled")
      for key in 0..<keys {
        let forKey = items.filter { $0.value % keys == key }
        #expect(Set(forKey.map(\.lane)).count <= 1)
        for sender in 0..<senders {
          let own = forKey.map(\.value).filter { $0 / perSender == sender }
          #expect(own == own.sorted())
        }
      }
    }
  }

  @Test func partitionFromFourSendersRunsLanesInParallel() {
    withWatchdog("partitionFromFourSendersRunsLanesInParallel", seconds: 60) {
      let senders = 4
      let perSender = 2_000
      let keys = 16
      let source = EventProducer<Int>()
      let partition = source.partition(lanes: 2) { $0 % keys }
      let seen = Collected<(lane: Int, value: Int)>()
      let ends = DispatchSemaphore(value: 0)
      let barrier = TwoPartyBarrier()
      let metInParallel = Collected<Bool>()
      for (index, lane) in partition.lanes.enumerated() {
        var first = true
        lane.observe { value in
          if first {
            first = false
            metInParallel.add(barrier.arrive(timeout: 10))
          }
          seen.add((index, value))
        } finished: {
          ends.signal()
        }
      }
      // Both lanes must get events: keys 0..<16 spread over 2 lanes.
      DispatchQueue.concurrentPerform(iterations: senders) { sender in
        for index in 0..<perSender { source.next(sender * perSender + index) }
      }
      source.finish()
      #expect((0..<2).allSatisfy { _ in ends.wait(timeout: .now() + 30) == .success })
      #expect(metInParallel.items == [true, true])
      let items = seen.items
      #expect(items.map(\.value).sorted() == Array(0..<senders * perSender))
      for key in 0..<keys {
        let forKey = items.filter { $0.value % keys == key }
        #expect(Set(forKey.map(\.lane)).count == 1)
        for sender in 0..<senders {
          let own = forKey.map(\.value).filter { $0 / perSender == sender }
          #expect(own == own.sorted())
        }
      }
    }
  }
}
