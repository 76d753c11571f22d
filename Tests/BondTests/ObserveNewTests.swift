import Testing
@testable import Bond

@Suite struct ObserveNewTests {
  @Test func skipsTheReplay() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    let seen = Recorder<Int>()
    let observation = producer.observeNew { seen.add($0) }
    producer.next(3)
    #expect(seen.items == [3])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func skipsWhatAChainDerivesFromItsReplay() {
    let producer = EventProducer<Int>(replayLength: 3)
    producer.next(1)
    producer.next(2)
    producer.next(3)
    let seen = Recorder<String>()
    let observation =
      producer
      .map { $0 * 2 }
      .filter { $0 > 2 }
      .skip(1)
      .startWith(0)
      .reduce("") { $0 + "\($1)" }
      .observeNew { seen.add($0) }
    producer.next(5)
    // The replay 1, 2, 3 becomes 2, 4, 6, then 4, 6, then 6; with the start: "0", "06" (dropped).
    // The first live event: 5 → 10 → "0610".
    #expect(seen.items == ["0610"])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func reentrantSendFromTheObserverIsNew() {
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(1)
    let seen = Recorder<Int>()
    let observation = producer.observeNew { value in
      seen.add(value)
      if value == 2 { producer.next(3) }
    }
    producer.next(2)
    #expect(seen.items == [2, 3])
    observation.dispose()
  }

  @Test func disposingReleasesTheObserver() {
    let producer = EventProducer<Int>(replayLength: 1)
    weak var weakCapture: Tracked?
    var observation: (any DisposableType)?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      observation = producer.map { $0 }.observeNew { _ in _ = tracked }
    }
    #expect(weakCapture != nil)
    observation?.dispose()
    #expect(weakCapture == nil)
    #expect(producer.observerCount == 0)
  }
}
