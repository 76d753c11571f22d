import Testing

@testable import Bond

@Suite struct DistinctByTests {
  @Test func dropsAnEventThatDuplicatesTheOneDeliveredBefore() {
    let producer = EventProducer<Int>()
    let seen = Recorder<Int>()
    let observation = producer.distinct(by: { $0 / 10 == $1 / 10 }).observe { seen.add($0) }
    for value in [1, 2, 13, 14, 5] { producer.next(value) }
    #expect(seen.items == [1, 13, 5])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  /// `previous` is the event delivered last, not the last one received: a slow drift is cut into
  /// steps.
  @Test func comparesWithTheEventDeliveredBeforeNotTheLastReceived() {
    let producer = EventProducer<Double>()
    let pairs = Recorder<String>()
    let seen = Recorder<Double>()
    producer.distinct(by: { previous, current in
      pairs.add("\(previous)-\(current)")
      return abs(previous - current) < 1
    }).observe { seen.add($0) }
    for value in [0, 0.5, 0.9, 1.2] { producer.next(value) }
    #expect(seen.items == [0, 1.2])
    #expect(pairs.items == ["0.0-0.5", "0.0-0.9", "0.0-1.2"])
  }

  @Test func matchesDistinctWithEqualityPerObserverIncludingTheReplay() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(1)
    let distinct = producer.distinct(by: ==)
    #expect(distinct.replayLength == 2)
    let log = Recorder<String>()
    distinct.observe(with: EventObserver({ log.add("a\($0)") }, registered: { log.add("a registered") }))
    producer.next(1)
    producer.next(2)
    distinct.observe(into: log)
    producer.next(2)
    producer.finish()
    #expect(log.items == ["a1", "a registered", "a2", "1", "2", "end"])
  }
}
