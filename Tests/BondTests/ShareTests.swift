import Testing
@testable import Bond

@Suite struct ShareTests {
  @Test func observesTheUpstreamOnceFromCreation() {
    let source = EventProducer<Int>()
    let calls = Recorder<Int>()
    let shared = source.map { value -> Int in
      calls.add(value)
      return value * 10
    }.share()
    #expect(source.observerCount == 1)
    source.next(1)  // no observer of `shared` yet: the map still runs once
    let a = Recorder<Int>()
    let b = Recorder<Int>()
    let first = shared.observe { a.add($0) }
    let second = shared.observe { b.add($0) }
    source.next(2)
    #expect(calls.items == [1, 2])
    #expect(a.items == [20] && b.items == [20])
    #expect(source.observerCount == 1)
    first.dispose()
    second.dispose()
  }

  @Test func replaysToLateObservers() {
    let source = EventProducer<Int>(replayLength: 1)
    source.next(1)
    let shared = source.map { $0 + 1 }.share(replayLength: 2)
    #expect(shared.replayLength == 2)
    source.next(2)
    source.next(3)
    let seen = Recorder<Int>()
    let observation = shared.observe { seen.add($0) }
    #expect(seen.items == [3, 4])
    observation.dispose()
  }

  @Test func releasingTheSharedProducerDisposesTheUpstreamObservation() {
    let source = EventProducer<Int>()
    weak var weakShared: EventProducer<Int>?
    weak var weakCapture: Tracked?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      let shared = source.map { value -> Int in
        _ = tracked
        return value
      }.share()
      weakShared = shared
      #expect(source.observerCount == 1)
    }
    #expect(weakShared == nil)
    #expect(weakCapture == nil)
    #expect(source.observerCount == 0)
  }

  @Test func staysAliveWhileObserved() {
    let source = EventProducer<Int>()
    weak var weakShared: EventProducer<Int>?
    let seen = Recorder<Int>()
    var observation: (any DisposableType)?
    do {
      let shared = source.share()
      weakShared = shared
      observation = shared.observe { seen.add($0) }
    }
    source.next(1)
    #expect(weakShared != nil && seen.items == [1])
    observation?.dispose()
    #expect(weakShared == nil)
    #expect(source.observerCount == 0)
  }

  @Test func negativeReplayLengthStops() async {
    await #expect(processExitsWith: .failure) {
      _ = EventProducer<Int>().share(replayLength: -1)
    }
  }
}
