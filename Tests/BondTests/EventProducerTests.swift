import Testing
@testable import Bond

@Suite struct EventProducerTests {
  @Test func deliversToEveryObserverInOrder() {
    let producer = EventProducer<Int>()
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    let a = producer.observe { first.add($0) }
    let b = producer.observe { second.add($0) }
    for value in 1...5 { producer.next(value) }
    #expect(first.items == [1, 2, 3, 4, 5])
    #expect(second.items == [1, 2, 3, 4, 5])
    #expect(producer.observerCount == 2)
    a.dispose()
    b.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func replaysTheLastEvents() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    producer.next(3)
    let seen = Recorder<Int>()
    let observation = producer.observe { seen.add($0) }
    #expect(seen.items == [2, 3])
    producer.next(4)
    #expect(seen.items == [2, 3, 4])
    observation.dispose()
    producer.next(5)
    #expect(seen.items == [2, 3, 4])
    #expect(producer.observerCount == 0)
  }

  @Test func replayShorterThanCapacity() {
    let producer = EventProducer<Int>(replayLength: 16)
    producer.next(1)
    let seen = Recorder<Int>()
    producer.observe { seen.add($0) }.dispose()
    #expect(seen.items == [1])
  }

  @Test func registeredFiresRightAfterTheReplay() {
    let producer = EventProducer<String>(replayLength: 1)
    producer.next("old")
    let log = Recorder<String>()
    let observation = producer.observe({ log.add($0) }, registered: { log.add("registered") })
    producer.next("new")
    #expect(log.items == ["old", "registered", "new"])
    observation.dispose()
  }

  @Test func reentrantNextIsDeliveredAfterTheCurrentEventReachesEveryObserver() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let a = producer.observe { value in
      log.add("a\(value)")
      if value == 1 { producer.next(2) }
    }
    let b = producer.observe { log.add("b\($0)") }
    producer.next(1)
    #expect(log.items == ["a1", "b1", "a2", "b2"])
    a.dispose()
    b.dispose()
  }

  @Test func deepFeedbackDoesNotGrowTheStack() {
    let producer = EventProducer<Int>()
    let count = Recorder<Int>()
    var last = 0
    let observation = producer.observe { value in
      last = value
      if value < 100_000 { producer.next(value + 1) } else { count.add(value) }
    }
    producer.next(1)
    #expect(last == 100_000)
    #expect(count.items == [100_000])
    observation.dispose()
  }

  @Test func twoProducersSendingIntoEachOtherDoNotDeadlock() {
    let ping = EventProducer<Int>()
    let pong = EventProducer<Int>()
    let log = Recorder<Int>()
    let a = ping.observe { value in
      log.add(value)
      if value < 10 { pong.next(value + 1) }
    }
    let b = pong.observe { value in
      log.add(value)
      if value < 10 { ping.next(value + 1) }
    }
    ping.next(0)
    #expect(log.items == Array(0...10))
    a.dispose()
    b.dispose()
  }

  @Test func observeFromInsideAnObserverRegistersAfterTheCurrentEvent() {
    let producer = EventProducer<Int>(replayLength: 1)
    let late = Recorder<Int>()
    var inner: (any DisposableType)?
    let outer = producer.observe { value in
      if value == 1 { inner = producer.observe { late.add($0) } }
    }
    producer.next(1)
    producer.next(2)
    #expect(late.items == [1, 2])
    outer.dispose()
    inner?.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func disposeFromInsideTheObserverStopsDeliveryAtOnce() {
    let producer = EventProducer<Int>()
    let seen = Recorder<Int>()
    var observation: (any DisposableType)?
    observation = producer.observe { value in
      seen.add(value)
      if value == 2 { observation?.dispose() }
      producer.next(value + 1)  // queued; must not reach the disposed observer
    }
    producer.next(1)
    #expect(seen.items == [1, 2])
    #expect(producer.observerCount == 0)
  }

  @Test func anEarlierObserverDisposingALaterOneDuringTheSameEvent() {
    let producer = EventProducer<Int>()
    let later = Recorder<Int>()
    var laterObservation: (any DisposableType)?
    let earlier = producer.observe { value in if value == 2 { laterObservation?.dispose() } }
    laterObservation = producer.observe { later.add($0) }
    producer.next(1)
    producer.next(2)
    producer.next(3)
    #expect(later.items == [1])
    earlier.dispose()
  }

  @Test func disposeTwiceIsHarmless() {
    let producer = EventProducer<Int>()
    let observation = producer.observe { _ in }
    observation.dispose()
    observation.dispose()
    #expect(observation.isDisposed)
    #expect(producer.observerCount == 0)
  }

  @Test func disposingReleasesTheObserversCapturesAtOnce() {
    let producer = EventProducer<Int>()
    weak var weakTracked: Tracked?
    var observation: (any DisposableType)?
    do {
      let tracked = Tracked()
      weakTracked = tracked
      observation = producer.observe { _ in _ = tracked }
    }
    #expect(weakTracked != nil)
    observation?.dispose()
    #expect(weakTracked == nil)
  }

  @Test func aDeallocatedProducerReleasesItsObservers() {
    weak var weakTracked: Tracked?
    weak var weakProducer: EventProducer<Int>?
    var observation: (any DisposableType)?
    do {
      let producer = EventProducer<Int>()
      weakProducer = producer
      let tracked = Tracked()
      weakTracked = tracked
      observation = producer.observe { _ in _ = tracked }
    }
    #expect(weakProducer == nil, "an observation does not keep a plain producer alive")
    #expect(weakTracked == nil, "the producer released its observer")
    observation?.dispose()  // harmless after the producer is gone
    #expect(observation?.isDisposed == true)
  }

  @Test func aManagedProducerLivesWhileObserved() {
    let disposed = Recorder<Int>()
    weak var weakProducer: EventProducer<String>?
    var producer: EventProducer<String>? = EventProducer<String>(replayLength: 1) { sink in
      sink("a")
      return BlockDisposable { disposed.add(1) }
    }
    weakProducer = producer
    let got = Recorder<String>()
    let watching = producer!.observe { got.add($0) }
    #expect(got.items == ["a"])
    producer = nil
    #expect(weakProducer != nil)
    #expect(disposed.items == [])
    watching.dispose()
    #expect(weakProducer == nil)
    #expect(disposed.items == [1])
  }

  @Test func aManagedProducerWithoutObserversGoesWithItsOwner() {
    let disposed = Recorder<Int>()
    var producer: EventProducer<Int>? = EventProducer<Int> { _ in BlockDisposable { disposed.add(1) } }
    _ = producer
    producer = nil
    #expect(disposed.items == [1])
  }

  @Test func sinkHoldsTheProducerWeaklyAndDisposesDisconnectOnDeinit() {
    let disconnected = Recorder<Int>()
    var producer: EventProducer<Int>? = EventProducer<Int>(replayLength: 1)
    let sink = producer!.sink(BlockDisposable { disconnected.add(1) })
    sink(5)
    let seen = Recorder<Int>()
    producer!.observe { seen.add($0) }
    #expect(seen.items == [5])
    producer = nil
    #expect(disconnected.items == [1])
    sink(6)  // a no-op once the producer is gone
  }

  @Test func negativeReplayLengthStops() async {
    await #expect(processExitsWith: .failure) {
      _ = EventProducer<Int>(replayLength: -1)
    }
  }
}

@Suite struct EventProducerLifetimeTests {
  /// An observer that holds its own producer (to send back into it) is a cycle the user breaks by
  /// disposing; disposing must not deadlock or crash when that releases the producer's last reference.
  @Test func disposingAnObserverThatHoldsTheLastReferenceToItsProducer() {
    weak var weakProducer: EventProducer<Int>?
    var observation: (any DisposableType)?
    do {
      let producer = EventProducer<Int>()
      weakProducer = producer
      observation = producer.observe { value in if value < 3 { producer.next(value + 1) } }
      producer.next(0)
    }
    #expect(weakProducer != nil, "the observer's closure holds its producer")
    observation?.dispose()
    #expect(weakProducer == nil)
  }

  /// The first observer has a slot of its own and the others a buffer (grown past 4): disposals in
  /// any order keep the rest in registration order, release the disposed closures, and a later
  /// observer takes the first slot again once it is free.
  @Test func observersKeepTheirOrderAcrossDisposalsAndGrowth() {
    let producer = EventProducer<Int>()
    let calls = Recorder<Int>()
    var observations = (0..<7).map { index in producer.observe { calls.add(index * 100 + $0) } }
    producer.next(1)
    #expect(calls.items == (0..<7).map { $0 * 100 + 1 })
    for index in [0, 3, 6] { observations[index].dispose() }
    producer.next(2)
    #expect(calls.items.suffix(4) == [102, 202, 402, 502])
    weak var weakTracked: Tracked?
    do {
      let tracked = Tracked()
      weakTracked = tracked
      observations.append(producer.observe { _ in _ = tracked })
    }
    for index in [1, 2, 4, 5, 7] { observations[index].dispose() }
    #expect(weakTracked == nil, "every disposed closure released")
    #expect(producer.observerCount == 0)
    observations = [producer.observe { calls.add(900 + $0) }]
    producer.next(3)
    #expect(calls.items.last == 903)
    #expect(producer.observerCount == 1)
  }
}
