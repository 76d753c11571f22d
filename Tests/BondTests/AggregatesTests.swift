import Testing

@testable import Bond

/// `last`, `count`, `contains`, `allSatisfy`, `min`, `max` (CONTRACT.md, "More of the vocabulary",
/// rule 2): one event then the end; `contains` and `allSatisfy` as soon as the answer is known.
@Suite struct AggregatesTests {
  @Test func theEndAggregatesDeliverOneEventAtTheEndThenTheEnd() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.last().observe {
      log.add("last \($0)")
    } finished: {
      log.add("last end")
    }
    producer.count().observe {
      log.add("count \($0)")
    } finished: {
      log.add("count end")
    }
    producer.min().observe {
      log.add("min \($0)")
    } finished: {
      log.add("min end")
    }
    producer.max().observe {
      log.add("max \($0)")
    } finished: {
      log.add("max end")
    }
    for value in [3, 1, 4, 1, 5, 2] { producer.next(value) }
    #expect(log.items.isEmpty, "nothing before the end")
    producer.finish()
    #expect(
      log.items == [
        "last 2", "last end", "count 6", "count end", "min 1", "min end", "max 5", "max end",
      ]
    )
  }

  @Test func onAnEmptyStreamCountIsZeroContainsFalseAllSatisfyTrueTheOthersOnlyEnd() {
    let log = Recorder<String>()
    let empty = EventProducer<Int>.empty()
    empty.count().observe(into: log)
    empty.contains(where: { _ in true }).observe(into: log)
    empty.contains(1).observe(into: log)
    empty.allSatisfy { _ in false }.observe(into: log)
    empty.last().observe(into: log)
    empty.min().observe(into: log)
    empty.max().observe(into: log)
    empty.min(by: >).observe(into: log)
    empty.max(by: >).observe(into: log)
    #expect(
      log.items == ["0", "end", "false", "end", "false", "end", "true", "end"] + Array(repeating: "end", count: 5)
    )
  }

  /// `contains` answers at the first match, then ends and stops observing; the upstream's later
  /// events and end reach nothing.
  @Test func containsAnswersAtOnceThenEndsAndStopsObserving() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = producer.contains(where: { $0 > 2 }).observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    producer.next(1)
    #expect(log.items == ["registered"])
    producer.next(3)
    #expect(log.items == ["registered", "true", "end"])
    #expect(producer.observerCount == 0)
    #expect(observation.isDisposed)
    producer.next(4)
    producer.finish()
    #expect(log.items == ["registered", "true", "end"])
  }

  @Test func containsAnEqualEventAndFalseAtTheEnd() {
    let producer = EventProducer<String>()
    let log = Recorder<String>()
    producer.contains("q").observe(into: log)
    producer.contains("z").observe(into: log)
    producer.next("a")
    producer.next("q")
    #expect(log.items == ["true", "end"])
    producer.finish()
    #expect(log.items == ["true", "end", "false", "end"])
  }

  @Test func allSatisfyAnswersFalseAtTheFirstFailureOrTrueAtTheEnd() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.allSatisfy { $0 < 3 }.observe {
      log.add("small \($0)")
    } finished: {
      log.add("small end")
    }
    producer.allSatisfy { $0 > 0 }.observe {
      log.add("positive \($0)")
    } finished: {
      log.add("positive end")
    }
    producer.next(1)
    producer.next(4)
    #expect(log.items == ["small false", "small end"])
    #expect(producer.observerCount == 1)
    producer.finish()
    #expect(log.items == ["small false", "small end", "positive true", "positive end"])
  }

  /// An answer found in the replay comes during `observe`: the answer, `registered`, the end.
  @Test func anAnswerInTheReplayComesDuringObserveBeforeRegistered() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(5)
    producer.next(6)
    let log = Recorder<String>()
    let contains = producer.contains(6)
    #expect(contains.replayLength == 1)
    #expect(EventProducer<Int>().count().replayLength == 0)
    let observation = contains.observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    #expect(log.items == ["true", "registered", "end"])
    #expect(observation.isDisposed)
    #expect(producer.observerCount == 0)
  }

  @Test func theAggregatesArePerObserverFromTheReplay() {
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(9)
    let log = Recorder<String>()
    let count = producer.count()
    count.observe { log.add("a\($0)") }
    producer.next(1)
    count.observe { log.add("b\($0)") }
    producer.finish()
    #expect(log.items == ["a2", "b1"])
  }

  @Test func minAndMaxByKeepTheFirstOfEqualEvents() {
    let producer = EventProducer<String>()
    let log = Recorder<String>()
    producer.min(by: { $0.count < $1.count }).observe { log.add("min \($0)") }
    producer.max(by: { $0.count < $1.count }).observe { log.add("max \($0)") }
    for word in ["bob", "al", "ann", "jo", "eve"] { producer.next(word) }
    producer.finish()
    #expect(log.items == ["min al", "max bob"])
  }

  /// A dispose() from inside the delivery of the result (or the answer) is not an end.
  @Test func disposingInsideTheResultDeliveryGetsNoEnd() {
    for early in [false, true] {
      let producer = EventProducer<Int>()
      let log = Recorder<String>()
      let holder = SerialDisposable()
      let aggregate = early ? producer.contains(1) : producer.contains(2)
      holder.otherDisposable = aggregate.observe {
        log.add("\($0)")
        holder.dispose()
      } finished: {
        log.add("end")
      }
      producer.next(1)
      producer.finish()
      #expect(log.items == [early ? "true" : "false"])
      #expect(producer.observerCount == 0)
    }
  }

  @Test func disposingBeforeTheEndDeliversNothing() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = producer.count().observe(into: log)
    producer.next(1)
    observation.dispose()
    #expect(producer.observerCount == 0)
    producer.finish()
    #expect(log.items.isEmpty)
  }

  @Test func theAggregatesOfAFiniteSequence() {
    let log = Recorder<String>()
    let numbers = EventProducer.from([4, 8, 15, 16, 23, 42])
    numbers.count().observe(into: log)
    numbers.last().observe(into: log)
    numbers.contains(15).observe(into: log)
    numbers.allSatisfy { $0.isMultiple(of: 2) }.observe(into: log)
    numbers.min().observe(into: log)
    numbers.max().observe(into: log)
    #expect(log.items == ["6", "end", "42", "end", "true", "end", "false", "end", "4", "end", "42", "end"])
  }

  /// The upstream's observation keeps nothing once the aggregate has ended.
  @Test func endingReleasesTheObserver() {
    let producer = EventProducer<Int>()
    weak var weakCapture: Tracked?
    var observation: (any DisposableType)?
    do {
      let tracked = Tracked()
      weakCapture = tracked
      observation = producer.contains(1).observe { _ in _ = tracked }
    }
    producer.next(1)
    #expect(weakCapture == nil)
    #expect(observation?.isDisposed == true)
  }
}
