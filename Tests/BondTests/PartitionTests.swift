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
    #expect((0..<3).allSatisfy { _ in ends.wait(timeout: .now() + 10) == .success })
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
    #expect((0..<2).allSatisfy { _ in ends.wait(timeout: .now() + 10) == .success })
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
}
