import Testing
@testable import Bond

@Suite struct ReduceTests {
  @Test func emitsTheRunningAccumulation() {
    let producer = EventProducer<Int>()
    let seen = Recorder<Int>()
    let observation = producer.reduce(0) { $0 + $1 }.observe { seen.add($0) }
    producer.next(1)
    producer.next(2)
    producer.next(3)
    #expect(seen.items == [1, 3, 6])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func eachObserverStartsFromTheInitialValueAndCountsTheReplay() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    producer.next(3)
    let sums = producer.reduce(100) { $0 + $1 }
    #expect(sums.replayLength == 2)
    let log = Recorder<String>()
    let a = sums.observe({ log.add("a\($0)") }, registered: { log.add("a registered") })
    producer.next(4)
    let b = sums.observe { log.add("b\($0)") }
    #expect(log.items == ["a102", "a105", "a registered", "a109", "b103", "b107"])
    a.dispose()
    b.dispose()
  }

  @Test func changesTheType() {
    let producer = EventProducer<String>()
    let seen = Recorder<[String]>()
    let observation = producer.reduce([]) { $0 + [$1] }.observe { seen.add($0) }
    producer.next("a")
    producer.next("b")
    #expect(seen.items == [["a"], ["a", "b"]])
    observation.dispose()
  }

  @Test func disposingReleasesTheAccumulationAndTheClosure() {
    let producer = EventProducer<Int>()
    weak var weakInitial: Tracked?
    weak var weakCapture: Tracked?
    var observation: (any DisposableType)?
    do {
      let initial = Tracked()
      let tracked = Tracked()
      weakInitial = initial
      weakCapture = tracked
      observation = producer.reduce(initial) { accumulation, _ in
        _ = tracked
        return accumulation
      }.observe { _ in }
    }
    producer.next(1)
    #expect(weakInitial != nil)
    observation?.dispose()
    #expect(weakInitial == nil && weakCapture == nil)
    #expect(producer.observerCount == 0)
  }
}
