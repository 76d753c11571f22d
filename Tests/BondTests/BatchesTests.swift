import BondTesting
import Dispatch
import Testing

@Suite struct BatchesTests {
  @Test func arraysOnTheSchedulerInOrderThenTheEnd() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    let ended = Recorder<String>()
    source.batches(on: clock, maxCount: 2).observe {
      arrays.add($0)
    } finished: {
      ended.add("end")
    }
    for value in 1...5 { source.next(value) }
    source.finish()
    #expect(arrays.items.isEmpty)
    clock.run()
    #expect(arrays.items == [[1, 2], [3, 4], [5]])
    #expect(ended.items == ["end"])
  }

  @Test func eventsSinceThePreviousArray() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    source.batches(on: clock).observe { arrays.add($0) }
    source.next(1)
    source.next(2)
    clock.run()
    source.next(3)
    clock.run()
    #expect(arrays.items == [[1, 2], [3]])
  }

  @Test func disposeStopsAndReleasesTheUpstream() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    let observation = source.batches(on: clock).observe { arrays.add($0) }
    source.next(1)
    observation.dispose()
    clock.run()
    #expect(arrays.items.isEmpty)
    #expect(source.observerCount == 0)
    #expect(observation.isDisposed)
  }

  @Test func registeredComesAfterTheArraysOfTheReplay() {
    let clock = TestScheduler()
    let source = EventProducer<Int>(replayLength: 3)
    for value in 1...3 { source.next(value) }
    let log = Recorder<String>()
    source.batches(on: clock, maxCount: 2).observe {
      log.add("\($0)")
    } registered: {
      log.add("registered")
    }
    source.next(4)
    clock.run()
    #expect(log.items == ["[1, 2]", "[3]", "registered", "[4]"])
  }

  @Test func disposeFromInsideAnArrayStopsTheRest() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    let observation = SerialDisposable()
    observation.otherDisposable = source.batches(on: clock, maxCount: 2).observe { array in
      arrays.add(array)
      observation.dispose()
    }
    for value in 1...5 { source.next(value) }
    clock.run()
    #expect(arrays.items == [[1, 2]])
    #expect(source.observerCount == 0)
  }

  @Test func aLargeBacklogIsSplitAtMaxCount() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let sizes = Recorder<Int>()
    let all = Recorder<Int>()
    source.batches(on: clock, maxCount: 1000).observe { array in
      sizes.add(array.count)
      for value in array { all.add(value) }
    }
    for value in 0..<10_500 { source.next(value) }
    clock.run()
    #expect(sizes.items.allSatisfy { $0 >= 1 && $0 <= 1000 })
    #expect(all.items == Array(0..<10_500))
  }

  @Test func maxCountBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().batches(on: TestScheduler(), maxCount: 0)
    }
    #expect(exitTestStandardError(result).contains("batches(on:maxCount:): maxCount must be at least 1, got 0"))
  }
}
