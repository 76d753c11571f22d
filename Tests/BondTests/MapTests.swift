import Testing
@testable import Bond

@Suite struct MapTests {
  @Test func transformsEveryEvent() {
    let producer = EventProducer<Int>()
    let seen = Recorder<String>()
    let observation = producer.map { "#\($0)" }.observe { seen.add($0) }
    producer.next(1)
    producer.next(2)
    #expect(seen.items == ["#1", "#2"])
    observation.dispose()
    producer.next(3)
    #expect(seen.items == ["#1", "#2"])
    #expect(producer.observerCount == 0)
  }

  @Test func transformsTheReplayAndForwardsRegistered() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    producer.next(3)
    let mapped = producer.map { $0 * 10 }
    #expect(mapped.replayLength == 2)
    let log = Recorder<String>()
    let observation = mapped.observe({ log.add("\($0)") }, registered: { log.add("registered") })
    producer.next(4)
    #expect(log.items == ["20", "30", "registered", "40"])
    observation.dispose()
  }

  @Test func eachObserverObservesTheUpstreamOnce() {
    let producer = EventProducer<Int>()
    let calls = Recorder<Int>()
    let mapped = producer.map { value -> Int in
      calls.add(value)
      return value
    }
    let a = mapped.observe { _ in }
    let b = mapped.observe { _ in }
    #expect(producer.observerCount == 2)
    producer.next(1)
    #expect(calls.items == [1, 1])
    a.dispose()
    b.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func disposingReleasesTheTransformAndTheObserver() {
    let producer = EventProducer<Int>()
    weak var weakTransformCapture: Tracked?
    weak var weakObserverCapture: Tracked?
    var observation: (any DisposableType)?
    do {
      let inTransform = Tracked()
      let inObserver = Tracked()
      weakTransformCapture = inTransform
      weakObserverCapture = inObserver
      observation = producer.map {
        _ = inTransform
        return $0
      }.observe { _ in _ = inObserver }
    }
    #expect(weakTransformCapture != nil && weakObserverCapture != nil)
    observation?.dispose()
    #expect(weakTransformCapture == nil && weakObserverCapture == nil)
    #expect(producer.observerCount == 0)
  }
}
