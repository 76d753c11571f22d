import Bond
import Testing

/// The end of a stream on `EventProducer` itself (CONTRACT.md, "Finite streams" 1 to 4).
@Suite struct FinishTests {
  @Test func theEndComesAfterEveryEventOnceAndDisposesTheObservation() {
    let producer = EventProducer<Int>(replayLength: 2)
    let log = Recorder<String>()
    let observation = producer.observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    producer.next(1)
    producer.next(2)
    #expect(!producer.isFinished)
    producer.finish()
    #expect(producer.isFinished)
    #expect(log.items == ["1", "2", "end"])
    #expect(observation.isDisposed && producer.observerCount == 0)
    producer.next(3)
    producer.finish()
    #expect(log.items == ["1", "2", "end"], "nothing after the end; a second finish() is harmless")
  }

  @Test func aLateObserverGetsTheReplayThenTheEnd() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    producer.finish()
    producer.next(3)
    let late = Recorder<String>()
    let observation = producer.observe {
      late.add("\($0)")
    } finished: {
      late.add("end")
    }
    #expect(late.items == ["1", "2", "end"], "the event after the end entered no replay")
    #expect(observation.isDisposed && producer.observerCount == 0)
  }

  @Test func aFinishFromInsideAnObserverIsQueuedAfterTheCurrentEvent() {
    let producer = EventProducer<Int>()
    let first = Recorder<String>()
    let second = Recorder<String>()
    producer.observe { value in
      first.add("\(value)")
      if value == 1 {
        producer.finish()
        producer.next(2)
      }
    } finished: {
      first.add("end")
    }
    producer.observe {
      second.add("\($0)")
    } finished: {
      second.add("end")
    }
    producer.next(1)
    #expect(first.items == ["1", "end"] && second.items == ["1", "end"])
  }

  @Test func disposeIsNotAnEnd() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = producer.observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    observation.dispose()
    producer.finish()
    #expect(log.items.isEmpty)
  }

  @Test func aDeallocatedProducerEndsItsObservations() {
    let ends = Recorder<String>()
    var observations: [any DisposableType] = []
    do {
      let plain = EventProducer<Int>()
      let value = Observable(0)
      let array = ObservableArray([1])
      observations.append(plain.observe({ _ in }, finished: { ends.add("producer") }))
      observations.append(value.observe({ _ in }, finished: { ends.add("observable") }))
      observations.append(array.observe({ _ in }, finished: { ends.add("array") }))
    }
    #expect(ends.items.sorted() == ["array", "observable", "producer"])
    #expect(observations.allSatisfy { $0.isDisposed })
  }

  @Test func synchronousOperatorsPassTheEndThrough() {
    let source = EventProducer<Int?>()
    let log = Recorder<String>()
    source.ignoreNil().map { $0 * 2 }.filter { $0 > 0 }.skip(1).distinct().reduce(0) { $0 + $1 }.startWith(-1)
      .rewrite(7).log("t", to: { _ in }).observeNew {
        log.add("\($0)")
      } finished: {
        log.add("end")
      }
    source.next(1)
    source.next(nil)
    source.next(2)
    source.finish()
    #expect(log.items == ["7", "end"])
  }
}

/// `AnyEventProducer` and `eraseToAnyEventProducer()`.
@Suite struct AnyEventProducerTests {
  @Test func anErasedChainPassesEventsRegistrationAndTheEnd() {
    let source = EventProducer<Int>(replayLength: 1)
    source.next(1)
    let erased: AnyEventProducer<String> = source.map { "\($0)" }.eraseToAnyEventProducer()
    #expect(erased.replayLength == 1)
    let log = Recorder<String>()
    erased.observe(
      with: EventObserver({ log.add($0) }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    source.next(2)
    source.finish()
    #expect(log.items == ["1", "registered", "2", "end"])
    #expect(source.observerCount == 0)
  }

  @Test func erasingTwiceDoesNotWrapTwice() {
    let source = EventProducer<Int>()
    let once = source.eraseToAnyEventProducer()
    let twice = once.eraseToAnyEventProducer()
    let log = Recorder<Int>()
    let observation = twice.observe { log.add($0) }
    source.next(3)
    observation.dispose()
    source.next(4)
    #expect(log.items == [3])
  }
}
