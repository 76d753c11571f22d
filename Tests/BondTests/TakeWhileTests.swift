import Testing

@testable import Bond

@Suite struct TakeWhileTests {
  @Test func endsAtTheFirstEventThatFails() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = producer.take(while: { $0 < 3 }).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    for value in [1, 2, 3, 1] { producer.next(value) }
    #expect(log.items == ["1", "2", "end"])
    #expect(producer.observerCount == 0 && observation.isDisposed)
  }

  /// The rest of the replay still reaches the operator after the end (the upstream's observation
  /// is disposed once its registration returns); the predicate is not asked about it.
  @Test func thePredicateIsNotAskedAfterTheEndDuringTheReplay() {
    let producer = EventProducer<Int>(replayLength: 3)
    for value in [1, 5, 2] { producer.next(value) }
    let asked = Recorder<Int>()
    producer.take(while: { value in
      asked.add(value)
      return value < 3
    }).observe { _ in }
    #expect(asked.items == [1, 5])
  }

  @Test func endsDuringTheReplay() {
    let producer = EventProducer<Int>(replayLength: 3)
    for value in [1, 5, 2] { producer.next(value) }
    let log = Recorder<String>()
    let taken = producer.take(while: { $0 < 3 })
    #expect(taken.replayLength == 3)
    let observation = taken.observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    #expect(log.items == ["1", "registered", "end"])
    #expect(producer.observerCount == 0 && observation.isDisposed)
  }

  @Test func passesTheUpstreamsEndThrough() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.take(while: { _ in true }).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    producer.next(1)
    producer.finish()
    #expect(log.items == ["1", "end"])
  }

  @Test func reentrantSend() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.take(while: { $0 < 3 }).observe { value in
      log.add("\(value)")
      producer.next(value + 1)
    } finished: {
      log.add("end")
    }
    producer.next(1)
    #expect(log.items == ["1", "2", "end"])
    #expect(producer.observerCount == 0)
  }

  @Test func disposeMidStream() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = producer.take(while: { $0 < 10 }).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    producer.next(1)
    observation.dispose()
    producer.next(2)
    #expect(log.items == ["1"])
    #expect(producer.observerCount == 0)
  }
}

@Suite struct SkipWhileTests {
  @Test func dropsWhileThePredicateHoldsThenForwardsEverything() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.skip(while: { $0 < 3 }).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    for value in [1, 2, 3, 1, 4] { producer.next(value) }
    producer.finish()
    #expect(log.items == ["3", "1", "4", "end"])
  }

  @Test func appliesToTheReplayPerObserver() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(5)
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    let skipped = producer.skip(while: { $0 < 3 })
    #expect(skipped.replayLength == 2)
    let a = skipped.observe { first.add($0) }
    producer.next(2)
    let b = skipped.observe { second.add($0) }
    producer.next(0)
    #expect(first.items == [5, 2, 0])
    #expect(second.items == [5, 2, 0])
    a.dispose()
    b.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func reentrantSend() {
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    producer.skip(while: { $0 < 3 }).observe { value in
      log.add(value)
    }
    producer.observe { value in if value < 4 { producer.next(value + 1) } }
    producer.next(1)
    #expect(log.items == [3, 4])
  }

  @Test func disposeMidStream() {
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    let observation = producer.skip(while: { $0 < 2 }).observe { log.add($0) }
    producer.next(1)
    producer.next(2)
    observation.dispose()
    producer.next(3)
    #expect(log.items == [2])
    #expect(producer.observerCount == 0)
  }
}
