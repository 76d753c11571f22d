import Testing

@testable import Bond

/// `just`, `from`, `empty`, `never`, `deferred` (CONTRACT.md, "More of the vocabulary", rule 1): cold,
/// each observer gets its own run, delivered during `observe`.
@Suite struct CreationTests {
  @Test func justDeliversItsEventThenRegisteredThenTheEndDuringObserve() {
    let log = Recorder<String>()
    let just = EventProducer.just(7)
    #expect(just.replayLength == 1)
    let observation = just.observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    #expect(log.items == ["7", "registered", "end"])
    #expect(observation.isDisposed)
    just.observe(into: log)
    #expect(log.items == ["7", "registered", "end", "7", "end"], "each observer gets its own run")
  }

  @Test func fromDeliversEveryElementInOrderThenTheEndPerObserver() {
    let from = EventProducer.from([1, 2, 3])
    #expect(from.replayLength == 3)
    let a = Recorder<String>()
    let b = Recorder<String>()
    let observation = from.observe(into: a)
    from.map { $0 * 10 }.observe(into: b)
    #expect(a.items == ["1", "2", "3", "end"])
    #expect(b.items == ["10", "20", "30", "end"])
    #expect(observation.isDisposed)
  }

  @Test func fromAnEmptySequenceOnlyEnds() {
    let log = Recorder<String>()
    EventProducer.from([Int]()).observe(into: log)
    #expect(log.items == ["end"])
  }

  @Test func fromMakesANewIteratorPerObserver() {
    var made = 0
    let numbers = AnySequence { () -> IndexingIterator<[Int]> in
      made += 1
      return [1, 2].makeIterator()
    }
    let from = EventProducer.from(numbers)
    let log = Recorder<String>()
    from.observe(into: log)
    from.observe(into: log)
    #expect(made == 2)
    #expect(log.items == ["1", "2", "end", "1", "2", "end"])
  }

  /// An infinite sequence ends under `take`, `first` and `take(while:)`: nothing past them is pulled.
  @Test func fromAnInfiniteSequenceEndsUnderTakeFirstAndTakeWhile() {
    let taken = Recorder<String>()
    EventProducer.from(1...).take(3).observe(into: taken)
    #expect(taken.items == ["1", "2", "3", "end"])
    let first = Recorder<String>()
    EventProducer.from(1...).first().observe(into: first)
    #expect(first.items == ["1", "end"])
    var pulled = 0
    let counting = (1...).lazy.map { value -> Int in
      pulled += 1
      return value
    }
    let small = Recorder<String>()
    EventProducer.from(counting).take(while: { $0 < 3 }).observe(into: small)
    #expect(small.items == ["1", "2", "end"])
    #expect(pulled == 3, "the first failing element is the last one pulled")
    let none = Recorder<String>()
    EventProducer.from(1...).take(0).observe(into: none)
    #expect(none.items == ["end"])
  }

  /// `contains` and `allSatisfy` on `from` answer from the sequence, per observer when it observes.
  @Test func fromAnInfiniteSequenceAnswersContainsAndAllSatisfy() {
    let log = Recorder<String>()
    EventProducer.from(1...).contains(5).observe(into: log)
    EventProducer.from(1...).contains(where: { $0 > 3 }).observe(into: log)
    EventProducer.from(1...).allSatisfy { $0 < 3 }.observe(into: log)
    EventProducer.from([1, 2]).contains(3).observe(into: log)
    EventProducer.from([1, 2]).allSatisfy { $0 < 3 }.observe(into: log)
    #expect(log.items == ["true", "end", "true", "end", "false", "end", "false", "end", "true", "end"])
    var asked = 0
    let lazy = EventProducer.from([1, 2]).contains(where: { _ in
      asked += 1
      return false
    })
    #expect(asked == 0, "asked when observed, not before")
    lazy.observe(into: log)
    lazy.observe(into: log)
    #expect(asked == 4)
  }

  /// `from` stops pulling once nobody downstream wants more, through any synchronous operator and
  /// through erasure, not only when `take` is applied to it directly.
  @Test func fromAnInfiniteSequenceEndsUnderAnEarlyEndThroughOtherOperators() {
    let doubled = Recorder<Int>()
    EventProducer.from(1...).map { $0 * 2 }.first().observe { doubled.add($0) }
    #expect(doubled.items == [2])

    let evens = Recorder<String>()
    EventProducer.from(1...).filter { $0 % 2 == 0 }.eraseToAnyEventProducer().take(3).observe {
      evens.add("\($0)")
    } finished: {
      evens.add("end")
    }
    #expect(evens.items == ["2", "4", "6", "end"])

    let found = Recorder<Bool>()
    EventProducer.from(1...).map { $0 * 3 }.contains { $0 > 10 }.observe { found.add($0) }
    #expect(found.items == [true])

    let until = Recorder<Int>()
    EventProducer.from(1...).compactMap { $0 }.take(while: { $0 < 4 }).observe { until.add($0) }
    #expect(until.items == [1, 2, 3])
  }

  @Test func fromTakeWithANegativeCountStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer.from(1...).take(-1)
    }
    #expect(exitTestStandardError(result).contains("take(_:): count must not be negative, got -1"))
  }

  @Test func emptyEndsAtOnceWithRegisteredFirst() {
    let log = Recorder<String>()
    let empty = EventProducer<Int>.empty()
    #expect(empty.replayLength == 0)
    let observation = empty.observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    #expect(log.items == ["registered", "end"])
    #expect(observation.isDisposed)
  }

  @Test func neverSendsNothingAndKeepsNothing() {
    let log = Recorder<String>()
    weak var weakCapture: Tracked?
    var observation: (any DisposableType)?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      observation = EventProducer<Int>.never().observe(
        with: EventObserver(
          { _ in _ = tracked },
          finished: { log.add("end") },
          registered: { log.add("registered") }
        )
      )
    }
    #expect(log.items == ["registered"])
    #expect(weakCapture == nil, "the observer is released at once")
    #expect(observation?.isDisposed == false)
    observation?.dispose()
    #expect(observation?.isDisposed == true)
  }

  @Test func deferredCallsMakeOncePerObserverWhenObserved() {
    var made = 0
    let fresh = EventProducer<Int>.deferred { () -> Observable<Int> in
      made += 1
      return Observable(made * 10)
    }
    #expect(made == 0)
    let log = Recorder<String>()
    fresh.observe { log.add("a\($0)") }
    fresh.observe { log.add("b\($0)") }
    #expect(made == 2)
    #expect(log.items == ["a10", "b20"])
  }

  @Test func deferredPassesTheEndAndRegisteredThrough() {
    let log = Recorder<String>()
    EventProducer<Int>.deferred { EventProducer.from([1, 2]) }.observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    #expect(log.items == ["1", "2", "registered", "end"])
  }

  /// What `make` returns lives while observed (nobody else holds it), and is released by dispose().
  @Test func deferredKeepsWhatItMadeAliveWhileObserved() {
    weak var weakMade: EventProducer<Int>?
    let fresh = EventProducer<Int>.deferred { () -> EventProducer<Int> in
      let producer = EventProducer<Int>()
      weakMade = producer
      return producer
    }
    let log = Recorder<String>()
    let observation = fresh.observe(into: log)
    #expect(weakMade != nil, "alive while observed")
    weakMade?.next(1)
    weakMade?.finish()
    #expect(log.items == ["1", "end"])
    #expect(weakMade == nil, "released after the end")
    let second = fresh.observe(into: log)
    #expect(weakMade != nil)
    second.dispose()
    #expect(weakMade == nil, "released by dispose()")
    observation.dispose()
  }
}
