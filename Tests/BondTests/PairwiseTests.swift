import Testing

@testable import Bond

@Suite struct PairwiseTests {
  @Test func deliversPreviousAndCurrentFromTheSecondEvent() {
    let producer = EventProducer<Int>()
    let pairs = Recorder<String>()
    let observation = producer.pairwise().observe { pairs.add("\($0.0)-\($0.1)") }
    for value in [1, 2, 13, 14, 5] { producer.next(value) }
    #expect(pairs.items == ["1-2", "2-13", "13-14", "14-5"])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func pairsPerObserverIncludingTheReplayAndPassesTheEndThrough() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    let pairwise = producer.pairwise()
    #expect(pairwise.replayLength == 1)
    #expect(EventProducer<Int>().pairwise().replayLength == 0)
    let log = Recorder<String>()
    pairwise.observe(
      with: EventObserver(
        { log.add("a\($0.0)-\($0.1)") },
        finished: { log.add("a end") },
        registered: { log.add("a registered") }
      )
    )
    producer.next(3)
    producer.finish()
    #expect(log.items == ["a1-2", "a registered", "a2-3", "a end"])
  }

  @Test func aSingleEventOrNoneGivesOnlyTheEnd() {
    let log = Recorder<String>()
    EventProducer.just(1).pairwise().observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    EventProducer<Int>.empty().pairwise().observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    #expect(log.items == ["end", "end"])
  }
}
