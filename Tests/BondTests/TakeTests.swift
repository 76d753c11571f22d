import Dispatch
import Testing

@testable import Bond

@Suite struct TakeTests {
  @Test func deliversTheFirstEventsThenEnds() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = producer.take(2).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    #expect(producer.observerCount == 1)
    producer.next(1)
    producer.next(2)
    #expect(log.items == ["1", "2", "end"])
    #expect(producer.observerCount == 0)
    #expect(observation.isDisposed)
    producer.next(3)
    #expect(log.items == ["1", "2", "end"])
  }

  @Test func countIsPerObserver() {
    let producer = EventProducer<Int>()
    let taken = producer.take(1)
    let first = Recorder<Int>()
    let second = Recorder<Int>()
    taken.observe { first.add($0) }
    producer.next(1)
    taken.observe { second.add($0) }
    producer.next(2)
    #expect(first.items == [1] && second.items == [2])
    #expect(producer.observerCount == 0)
  }

  @Test func countsTheReplayAndEndsDuringRegistration() {
    let producer = EventProducer<Int>(replayLength: 3)
    for value in 1...3 { producer.next(value) }
    let log = Recorder<String>()
    let taken = producer.take(2)
    #expect(taken.replayLength == 2)
    let observation = taken.observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    #expect(log.items == ["1", "2", "registered", "end"])
    #expect(producer.observerCount == 0)
    #expect(observation.isDisposed)
  }

  @Test func replayShorterThanTheCountGoesOnIntoLiveEvents() {
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(1)
    let log = Recorder<String>()
    let observation = producer.take(3).observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    for value in 2...5 { producer.next(value) }
    #expect(log.items == ["1", "registered", "2", "3", "end"])
    #expect(observation.isDisposed && producer.observerCount == 0)
  }

  @Test func takeZeroEndsAtOnceWithoutObserving() {
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(1)
    let log = Recorder<String>()
    let taken = producer.take(0)
    #expect(taken.replayLength == 0)
    let observation = taken.observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    #expect(log.items == ["end"])
    #expect(observation.isDisposed && producer.observerCount == 0)
  }

  @Test func firstIsTakeOne() {
    let value = Observable(7)
    let log = Recorder<String>()
    #expect(value.first().replayLength == 1)
    let observation = value.first().observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    value.value = 8
    #expect(log.items == ["7", "end"])
    #expect(observation.isDisposed && value.observerCount == 0)
  }

  @Test func passesTheUpstreamsEndThroughOnce() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = producer.take(5).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    producer.next(1)
    producer.finish()
    #expect(log.items == ["1", "end"])
    #expect(observation.isDisposed)
  }

  @Test func anEndedUpstreamEndsAtRegistration() {
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(1)
    producer.finish()
    let log = Recorder<String>()
    let observation = producer.take(3).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    #expect(log.items == ["1", "end"])
    #expect(observation.isDisposed)
  }

  @Test func reentrantSendIsQueuedAndCounted() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.take(2).observe { value in
      log.add("\(value)")
      if value < 5 { producer.next(value + 1) }
    } finished: {
      log.add("end")
    }
    producer.next(1)
    #expect(log.items == ["1", "2", "end"])
    #expect(producer.observerCount == 0)
  }

  @Test func disposeMidStreamIsNotAnEnd() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = producer.take(3).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    producer.next(1)
    observation.dispose()
    producer.next(2)
    #expect(log.items == ["1"])
    #expect(producer.observerCount == 0 && observation.isDisposed)
  }

  @Test func disposeFromInsideTheLastDeliveryIsNotAnEnd() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let holder = SerialDisposable()
    holder.otherDisposable = producer.take(1).observe { value in
      log.add("\(value)")
      holder.dispose()
    } finished: {
      log.add("end")
    }
    producer.next(1)
    #expect(log.items == ["1"])
    #expect(producer.observerCount == 0)
  }

  @Test func releasesTheObserverAtTheStop() {
    let producer = EventProducer<Int>()
    weak var weakCapture: Tracked?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      producer.take(1).observe { _ in _ = tracked }
    }
    #expect(weakCapture != nil)
    producer.next(1)
    #expect(weakCapture == nil)
  }

  @Test func stopsInsideAnotherThreadsDelivery() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let done = DispatchSemaphore(value: 0)
    let observation = producer.take(1).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
      done.signal()
    }
    DispatchQueue.global().async { producer.next(1) }
    done.wait()
    #expect(log.items == ["1", "end"])
    #expect(observation.isDisposed)
    #expect(producer.observerCount == 0)
  }

  @Test func negativeCountStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().take(-1)
    }
    #expect(exitTestStandardError(result).contains("take(_:): count must not be negative, got -1"))
  }
}
