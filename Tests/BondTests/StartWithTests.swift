import Testing
@testable import Bond

@Suite struct StartWithTests {
  @Test func eachObserverFirstReceivesTheEvent() {
    let producer = EventProducer<Int>()
    let started = producer.startWith(0)
    #expect(started.replayLength == 1)
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    let a = started.observe { first.add($0) }
    producer.next(1)
    let b = started.observe { second.add($0) }
    producer.next(2)
    #expect(first.items == [0, 1, 2])
    #expect(second.items == [0, 2])
    a.dispose()
    b.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func comesBeforeTheReplayAndRegisteredAfterBoth() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    let started = producer.startWith(0)
    #expect(started.replayLength == 3)
    let log = Recorder<String>()
    let observation = started.observe({ log.add("\($0)") }, registered: { log.add("registered") })
    producer.next(3)
    #expect(log.items == ["0", "1", "2", "registered", "3"])
    observation.dispose()
  }

  @Test func stackedStartWithsComeOutermostFirst() {
    let producer = EventProducer<Int>()
    let seen = Recorder<Int>()
    let observation = producer.startWith(2).startWith(1).observe { seen.add($0) }
    producer.next(3)
    #expect(seen.items == [1, 2, 3])
    observation.dispose()
  }

  @Test func observeNewDropsTheStartEventAndTheReplay() {
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(1)
    let seen = Recorder<Int>()
    let observation = producer.startWith(0).observeNew { seen.add($0) }
    producer.next(2)
    #expect(seen.items == [2])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func disposingReleasesTheEventAndTheObserver() {
    let producer = EventProducer<Tracked>()
    weak var weakEvent: Tracked?
    weak var weakCapture: Tracked?
    var observation: (any DisposableType)?
    do {
      let event = Tracked()
      let tracked = Tracked()
      weakEvent = event
      weakCapture = tracked
      observation = producer.startWith(event).observe { _ in _ = tracked }
    }
    #expect(weakCapture != nil)
    observation?.dispose()
    #expect(weakEvent == nil && weakCapture == nil)
    #expect(producer.observerCount == 0)
  }
}
