import Testing
@testable import Bond

@Suite struct FilterTests {
  @Test func forwardsOnlyPassingEvents() {
    let producer = EventProducer<Int>()
    let seen = Recorder<Int>()
    let observation = producer.filter { $0 % 2 == 0 }.observe { seen.add($0) }
    for value in 1...6 { producer.next(value) }
    #expect(seen.items == [2, 4, 6])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func filtersTheReplayAndForwardsRegistered() {
    let producer = EventProducer<Int>(replayLength: 3)
    producer.next(1)
    producer.next(2)
    producer.next(3)
    let filtered = producer.filter { $0 != 2 }
    #expect(filtered.replayLength == 3)
    let log = Recorder<String>()
    let observation = filtered.observe({ log.add("\($0)") }, registered: { log.add("registered") })
    producer.next(2)
    producer.next(4)
    #expect(log.items == ["1", "3", "registered", "4"])
    observation.dispose()
  }

  @Test func disposingReleasesThePredicate() {
    let producer = EventProducer<Int>()
    weak var weakCapture: Tracked?
    var observation: (any DisposableType)?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      observation = producer.filter { _ in
        _ = tracked
        return true
      }.observe { _ in }
    }
    #expect(weakCapture != nil)
    observation?.dispose()
    #expect(weakCapture == nil)
    #expect(producer.observerCount == 0)
  }
}
