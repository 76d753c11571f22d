import Testing
@testable import Bond

@Suite struct DistinctTests {
  @Test func dropsAnEventEqualToThePreviousOne() {
    let producer = EventProducer<Int>()
    let seen = Recorder<Int>()
    let observation = producer.distinct().observe { seen.add($0) }
    for value in [20, 20, 21, 21, 21, 20, 22] { producer.next(value) }
    #expect(seen.items == [20, 21, 20, 22])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func comparesPerObserverIncludingTheReplay() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(1)
    let distinct = producer.distinct()
    #expect(distinct.replayLength == 2)
    let log = Recorder<String>()
    let a = distinct.observe({ log.add("a\($0)") }, registered: { log.add("a registered") })
    producer.next(1)
    producer.next(2)
    let b = distinct.observe { log.add("b\($0)") }
    producer.next(2)
    #expect(log.items == ["a1", "a registered", "a2", "b1", "b2"])
    a.dispose()
    b.dispose()
  }

  @Test func disposingReleasesTheLastEvent() {
    let producer = EventProducer<String>()
    weak var weakCapture: Tracked?
    var observation: (any DisposableType)?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      observation = producer.distinct().observe { _ in _ = tracked }
    }
    producer.next("x")
    observation?.dispose()
    #expect(weakCapture == nil)
    #expect(producer.observerCount == 0)
  }
}
