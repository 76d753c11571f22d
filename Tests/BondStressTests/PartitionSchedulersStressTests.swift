import Foundation
import Synchronization
import Testing
@testable import Bond

// `partition(lanes:bufferLimit:whenFull:statistics:on:by:)` under concurrent senders: lanes on
// dedicated threads, and a partition the user dropped, released while senders still send.
// Run under `swift test --scratch-path .build-tsan --sanitize=thread --filter PartitionSchedulersStressTests`.

@Suite struct PartitionSchedulersStressTests {
  /// Four senders flood a partition whose lanes run on dedicated threads and hold the senders back
  /// (bounded, lossless): every event once, each sender's events of a key in order, both ends.
  @Test func lanesOnDedicatedThreadsUnderFourSendersDeliverEveryEventOnceInOrder() {
    withWatchdog("lanesOnDedicatedThreadsUnderFourSenders", seconds: 120) {
      let senders = 4
      let perSender = 10_000 * stressScale
      let keys = 32
      let source = EventProducer<Int>()
      let threads = [DedicatedThreadScheduler(), DedicatedThreadScheduler()]
      let partition = source.partition(lanes: 2, bufferLimit: 32, on: threads) { $0 % keys }
      let seen = [Recorder<Int>(), Recorder<Int>()]
      let ends = Counter()
      for (index, lane) in partition.lanes.enumerated() {
        lane.observe {
          seen[index].add($0)
        } finished: {
          ends.increment()
        }
      }
      runTogether(threads: senders) { sender in
        for index in 0..<perSender { source.next(sender * perSender + index) }
      }
      source.finish()
      #expect(waitUntil { ends.count == 2 }, "both lanes end")
      let all = seen[0].items + seen[1].items
      #expect(all.count == senders * perSender && Set(all).count == all.count, "every event once")
      for lane in seen {
        var last = [Int: Int]()  // (sender * keys + key) -> the last value delivered
        var inOrder = true
        for value in lane.items {
          let slot = (value / perSender) * keys + value % keys
          if let previous = last[slot], previous > value { inOrder = false }
          last[slot] = value
        }
        #expect(inOrder, "a sender's events of one key keep their order")
      }
    }
  }

  /// Rounds of: a partition on dedicated threads that the user drops at once, keeping only the
  /// lanes' disposables; a sender floods it while two threads dispose the lane observations. The
  /// partition keeps delivering while a lane is observed and is released with the last observation
  /// (it then no longer observes the upstream); no race (TSan).
  @Test func aDroppedPartitionIsReleasedWithItsLastLaneObservationWhileASenderFloods() {
    withWatchdog("aDroppedPartitionIsReleasedWithItsLastLaneObservation", seconds: 120) {
      let threads = [DedicatedThreadScheduler(), DedicatedThreadScheduler()]
      for round in 0..<(50 * stressScale) {
        let source = EventProducer<Int>()
        let delivered = Counter()
        weak var weakPartition: Partition<Int>?
        var observations: [any DisposableType] = []
        do {
          let partition = source.partition(lanes: 2, bufferLimit: 16, on: threads) { $0 }
          weakPartition = partition
          for lane in partition.lanes {
            observations.append(lane.observe { _ in delivered.increment() })
          }
        }
        #expect(weakPartition != nil, "round \(round): alive while observed")
        source.next(0)
        #expect(waitUntil { delivered.count == 1 }, "round \(round): a dropped partition delivers")
        let disposables = UncheckedBox(observations)
        observations = []
        runTogether(threads: 3) { thread in
          if thread == 2 {
            for value in 1..<2_000 { source.next(value) }
          } else {
            disposables.value?[thread].dispose()
          }
        }
        disposables.value = nil
        #expect(waitUntil { weakPartition == nil }, "round \(round): released with the last observation")
        #expect(source.observerCount == 0, "round \(round): it no longer observes the upstream")
      }
    }
  }
}
