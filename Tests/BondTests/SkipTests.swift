import Testing
@testable import Bond

@Suite struct SkipTests {
  @Test func dropsTheFirstEventsOfEachObserver() {
    let producer = EventProducer<Int>()
    let skipped = producer.skip(2)
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    let a = skipped.observe { first.add($0) }
    producer.next(1)
    producer.next(2)
    let b = skipped.observe { second.add($0) }
    producer.next(3)
    producer.next(4)
    producer.next(5)
    #expect(first.items == [3, 4, 5])
    #expect(second.items == [5])
    a.dispose()
    b.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func countsReplayedEvents() {
    let producer = EventProducer<Int>(replayLength: 3)
    producer.next(1)
    producer.next(2)
    producer.next(3)
    let log = Recorder<String>()
    let skipped = producer.skip(2)
    #expect(skipped.replayLength == 1)
    let observation = skipped.observe({ log.add("\($0)") }, registered: { log.add("registered") })
    producer.next(4)
    #expect(log.items == ["3", "registered", "4"])
    observation.dispose()
  }

  @Test func countLongerThanTheReplayGoesOnIntoLiveEvents() {
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(1)
    let skipped = producer.skip(3)
    #expect(skipped.replayLength == 0)
    let log = Recorder<String>()
    // `registered` is forwarded as is: it fires after the replay, while 2 events are still to skip.
    let observation = skipped.observe({ log.add("\($0)") }, registered: { log.add("registered") })
    for value in 2...5 { producer.next(value) }
    #expect(log.items == ["registered", "4", "5"])
    observation.dispose()
  }

  @Test func skipReplayLengthIsObserveNew() {
    let name = Observable("Jim")
    let seen = Recorder<String>()
    let observation = name.skip(name.replayLength).observe { seen.add($0) }
    name.value = "Spock"
    #expect(seen.items == ["Spock"])
    observation.dispose()
    #expect(name.observerCount == 0)
  }

  @Test func skipZeroForwardsEverything() {
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(1)
    let seen = Recorder<Int>()
    let skipped = producer.skip(0)
    #expect(skipped.replayLength == 1)
    skipped.observe { seen.add($0) }.dispose()
    #expect(seen.items == [1])
  }

  @Test func disposingReleasesTheObserver() {
    let producer = EventProducer<Int>()
    weak var weakCapture: Tracked?
    var observation: (any DisposableType)?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      observation = producer.skip(1).observe { _ in _ = tracked }
    }
    #expect(weakCapture != nil)
    observation?.dispose()
    #expect(weakCapture == nil)
    #expect(producer.observerCount == 0)
  }

  @Test func negativeCountStops() async {
    await #expect(processExitsWith: .failure) {
      _ = EventProducer<Int>().skip(-1)
    }
  }
}
