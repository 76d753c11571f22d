import BondTesting
import Dispatch
import Testing

@Suite struct PartitionTests {
  @Test func everyEventInOneLaneKeysInOrderThenTheEnd() {
    let source = EventProducer<Int>()
    let partition = source.partition(lanes: 3) { $0 % 7 }
    #expect(partition.lanes.count == 3)
    #expect(source.observerCount == 1)
    let seen = Recorder<(lane: Int, value: Int)>()
    let ends = DispatchSemaphore(value: 0)
    for (index, lane) in partition.lanes.enumerated() {
      lane.observe {
        seen.add((index, $0))
      } finished: {
        ends.signal()
      }
    }
    for value in 0..<500 { source.next(value) }
    source.finish()
    #expect((0..<3).allSatisfy { _ in ends.wait(timeout: .now() + outcomeWatchdogSeconds) == .success })
    let items = seen.items
    #expect(items.map(\.value).sorted() == Array(0..<500))
    for key in 0..<7 {
      let forKey = items.filter { $0.value % 7 == key }
      #expect(Set(forKey.map(\.lane)).count == 1)
      #expect(forKey.map(\.value) == forKey.map(\.value).sorted())
    }
  }

  @Test func disposeStopsTheUpstreamAndEndsEveryLane() {
    let source = EventProducer<Int>()
    let partition = source.partition(lanes: 2) { $0 }
    let ends = DispatchSemaphore(value: 0)
    for lane in partition.lanes {
      lane.observe { _ in
      } finished: {
        ends.signal()
      }
    }
    partition.dispose()
    #expect(partition.isDisposed)
    #expect(source.observerCount == 0)
    #expect((0..<2).allSatisfy { _ in ends.wait(timeout: .now() + outcomeWatchdogSeconds) == .success })
  }

  @Test func aDeallocatedPartitionDisposes() {
    let source = EventProducer<Int>()
    do {
      let partition = source.partition(lanes: 2) { $0 }
      _ = partition.lanes
    }
    #expect(source.observerCount == 0)
  }

  @Test func lanesBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().partition(lanes: 0) { $0 }
    }
    #expect(exitTestStandardError(result).contains("partition(lanes:by:): lanes must be at least 1, got 0"))
  }

  /// A bounded lane whose observer is busy with its first event keeps `bufferLimit` of the next
  /// ones; `policy` says which; the drops are counted; the other lane goes on; the end comes.
  @Test(arguments: [(DeliveryOverflowPolicy.dropNewest, [0, 1, 2]), (.dropOldest, [0, 8, 9])])
  func boundedLanesDropByThePolicyAndCountTheDrops(policy: DeliveryOverflowPolicy, delivered: [Int]) {
    // Lane = hash(key) % 2 with the process's hash seed: find a key whose lane differs from key 0's.
    func lane(_ key: Int) -> Int { Int(UInt(bitPattern: key.hashValue) % 2) }
    let otherKey = (1...).first { lane($0) != lane(0) }!
    let source = EventProducer<Int>()
    let drops = DeliveryStatistics()
    // Values below 100 go to key 0's lane (held), the others to the other lane.
    let partition = source.partition(lanes: 2, bufferLimit: 2, whenFull: policy, statistics: drops) {
      $0 < 100 ? 0 : otherKey
    }
    let busy = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)
    let seen = [Recorder<Int>(), Recorder<Int>()]
    let ends = DispatchSemaphore(value: 0)
    for (index, lane) in partition.lanes.enumerated() {
      lane.observe { value in
        if value == 0 {
          entered.signal()
          busy.wait()  // holds the lane on its first event
        }
        seen[index].add(value)
      } finished: {
        ends.signal()
      }
    }
    source.next(0)
    #expect(entered.wait(timeout: .now() + outcomeWatchdogSeconds) == .success)
    for value in 1..<10 { source.next(value) }  // 9 more to the held lane: 2 kept, 7 dropped
    for value in 100..<110 { source.next(value) }  // 10 to the other lane, which is not held
    busy.signal()
    source.finish()
    #expect((0..<2).allSatisfy { _ in ends.wait(timeout: .now() + outcomeWatchdogSeconds) == .success })
    #expect(seen[lane(0)].items == delivered)
    // The other lane drops only if its queue fell behind: what it delivers is in order.
    let other = seen[lane(otherKey)].items
    #expect(other == other.sorted() && Set(other).isSubset(of: Set(100..<110)) && other.count >= 2)
    #expect(drops.droppedCount == 7 + (10 - other.count))
  }

  @Test func boundedLanesBufferLimitBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().partition(lanes: 2, bufferLimit: 0, whenFull: .dropOldest) { $0 }
    }
    #expect(
      exitTestStandardError(result).contains(
        "partition(lanes:bufferLimit:whenFull:statistics:by:): bufferLimit must be at least 1, got 0"
      )
    )
  }
}
