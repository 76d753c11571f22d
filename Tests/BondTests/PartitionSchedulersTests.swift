@testable import Bond
import BondTesting
import Dispatch
import Foundation
import Testing

/// `partition(lanes:bufferLimit:whenFull:statistics:on:by:)` (CONTRACT.md, "The 1.0 surface" 3):
/// each lane on its own scheduler, and a partition that lives while any of its lanes is observed.
@Suite struct PartitionSchedulersTests {
  @Test func eachLaneDeliversOnItsSchedulersThreadEveryEventOnceKeysInOrder() {
    let threads = [DedicatedThreadScheduler(), DedicatedThreadScheduler(), DedicatedThreadScheduler()]
    let schedulerThreads = threads.map { scheduler in
      let thread = Recorder<UInt>()
      scheduler.schedule { thread.add(currentThreadID()) }
      return thread
    }
    let source = EventProducer<Int>()
    let partition = source.partition(lanes: 3, on: threads) { $0 % 7 }
    let seen = Recorder<(lane: Int, thread: UInt, value: Int)>()
    let ends = Recorder<Int>()
    for (index, lane) in partition.lanes.enumerated() {
      lane.observe {
        seen.add((index, currentThreadID(), $0))
      } finished: {
        ends.add(index)
      }
    }
    for value in 0..<1_000 { source.next(value) }
    source.finish()
    #expect(waitUntil { ends.items.count == 3 })
    let items = seen.items
    #expect(items.map(\.value).sorted() == Array(0..<1_000), "every event once")
    for index in 0..<3 {
      let laneThreads = Set(items.filter { $0.lane == index }.map(\.thread))
      #expect(laneThreads.isSubset(of: [schedulerThreads[index].items.first ?? 0]), "lane \(index) on its scheduler")
    }
    for key in 0..<7 {
      let forKey = items.filter { $0.value % 7 == key }
      #expect(Set(forKey.map(\.lane)).count == 1 && forKey.map(\.value) == forKey.map(\.value).sorted())
    }
  }

  @Test func lanesOnDedicatedThreadsUnderAMultiThreadFloodKeepEveryEventAndEachKeysOrder() {
    let senders = 4
    let perSender = 5_000
    let keys = 16
    let threads = [DedicatedThreadScheduler(), DedicatedThreadScheduler()]
    let source = EventProducer<Int>()
    // bufferLimit 64: the lanes fill and hold the senders back (lossless by default).
    let partition = source.partition(lanes: 2, bufferLimit: 64, on: threads) { $0 % keys }
    let seen = [Recorder<Int>(), Recorder<Int>()]
    let ends = Recorder<Int>()
    for (index, lane) in partition.lanes.enumerated() {
      lane.observe {
        seen[index].add($0)
      } finished: {
        ends.add(index)
      }
    }
    DispatchQueue.concurrentPerform(iterations: senders) { sender in
      for index in 0..<perSender { source.next(sender * perSender + index) }
    }
    source.finish()
    #expect(waitUntil { ends.items.count == 2 })
    let all = seen[0].items + seen[1].items
    #expect(all.count == senders * perSender && Set(all).count == all.count, "every event once")
    for lane in seen {
      let items = lane.items
      for key in 0..<keys {
        for sender in 0..<senders {
          let own = items.filter { $0 % keys == key && $0 / perSender == sender }
          #expect(own == own.sorted(), "a sender's events of one key keep their order")
        }
      }
    }
  }

  @Test func aPartitionTheUserDropsLivesWhileALaneIsObservedAndGoesWithTheLastObservation() {
    let source = EventProducer<Int>()
    let seen = [Recorder<Int>(), Recorder<Int>()]
    weak var weakPartition: Partition<Int>?
    var observations: [any DisposableType] = []
    do {
      let partition = source.partition(lanes: 2, on: [DispatchQueue(label: "lane0"), DispatchQueue(label: "lane1")]) {
        $0 % 2
      }
      weakPartition = partition
      for (index, lane) in partition.lanes.enumerated() {
        observations.append(lane.observe { seen[index].add($0) })
      }
    }
    #expect(weakPartition != nil, "alive while its lanes are observed")
    for value in 0..<100 { source.next(value) }
    #expect(waitUntil { seen[0].items.count + seen[1].items.count == 100 }, "it keeps delivering")
    observations[0].dispose()
    #expect(weakPartition != nil, "alive while one lane is observed")
    #expect(source.observerCount == 1)
    for value in 100..<200 { source.next(value) }
    // The partition's lane rule, with the process's hash seed: lane 1 keeps receiving its events.
    let laneOne = (0..<200).filter { Int(UInt(bitPattern: ($0 % 2).hashValue) % 2) == 1 }
    #expect(waitUntil { seen[1].items == laneOne }, "the lane still observed keeps delivering")
    observations[1].dispose()
    #expect(weakPartition == nil, "released with the last lane observation")
    #expect(source.observerCount == 0, "and disposed: it no longer observes the upstream")
  }

  @Test func aPartitionNeitherHeldNorObservedIsReleasedAndObservingAKeptLaneGivesTheEnd() {
    let source = EventProducer<Int>()
    weak var weakPartition: Partition<Int>?
    var lane: EventProducer<Int>?
    do {
      let partition = source.partition(lanes: 2, on: [DispatchQueue(label: "lane0"), DispatchQueue(label: "lane1")]) {
        $0
      }
      weakPartition = partition
      lane = partition.lanes[0]
    }
    #expect(weakPartition == nil && source.observerCount == 0)
    let ended = Recorder<String>()
    lane?.observe { _ in
    } finished: {
      ended.add("end")
    }
    #expect(waitUntil { ended.items == ["end"] })
  }

  @Test func theUpstreamsEndEndsTheLanesAndReleasesADroppedPartition() {
    let source = EventProducer<Int>()
    weak var weakPartition: Partition<Int>?
    let ends = Recorder<Int>()
    do {
      let partition = source.partition(lanes: 2, on: [DedicatedThreadScheduler(), DedicatedThreadScheduler()]) { $0 }
      weakPartition = partition
      for (index, lane) in partition.lanes.enumerated() {
        lane.observe { _ in
        } finished: {
          ends.add(index)
        }
      }
    }
    source.next(1)
    source.finish()
    #expect(waitUntil { ends.items.count == 2 })
    #expect(waitUntil { weakPartition == nil }, "the lanes' observations ended: nothing holds it")
  }

  @Test func schedulersNotOnePerLaneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().partition(lanes: 3, on: [DispatchQueue(label: "a"), DispatchQueue(label: "b")]) { $0 }
    }
    #expect(
      exitTestStandardError(result).contains(
        "partition(lanes:bufferLimit:whenFull:statistics:on:by:): one scheduler per lane: 3 lanes, got 2 schedulers"
      )
    )
  }

  @Test func onSchedulersBufferLimitBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().partition(lanes: 1, bufferLimit: 0, on: [DispatchQueue(label: "a")]) { $0 }
    }
    #expect(
      exitTestStandardError(result).contains(
        "partition(lanes:bufferLimit:whenFull:statistics:on:by:): bufferLimit must be at least 1, got 0"
      )
    )
  }
}
