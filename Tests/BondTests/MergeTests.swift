import Testing
@testable import Bond

@Suite struct MergeTests {
  // MARK: the contract's usage

  @Test func contractMerge() {
    let outer = EventProducer<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let merged = Recorder<Int>()
    let all = Recorder<Int>()
    let a = outer.merge().observe { merged.add($0) }
    let b = merge([first, second]).observe { all.add($0) }
    outer.next(first)
    first.next(1)
    outer.next(second)
    first.next(2)
    second.next(3)
    #expect(merged.items == [1, 2, 3] && all.items == [1, 2, 3])
    a.dispose()
    b.dispose()
    #expect(outer.observerCount == 0 && first.observerCount == 0 && second.observerCount == 0)
  }

  // MARK: outer.merge()

  @Test func forwardsEveryInnerIncludingItsReplay() {
    let outer = EventProducer<Observable<String>>()
    let log = Recorder<String>()
    let observation = outer.merge().observe { log.add($0) }
    let x = Observable("x0")
    let y = Observable("y0")
    outer.next(x)
    x.value = "x1"
    outer.next(y)
    y.value = "y1"
    x.value = "x2"
    #expect(log.items == ["x0", "x1", "y0", "y1", "x2"])
    observation.dispose()
  }

  @Test func anInnerReplayedByTheOuterIsObservedAtRegistration() {
    let inner = Observable(7)
    let outer = Observable(inner)
    let log = Recorder<String>()
    let observation = outer.merge().observe({ log.add("\($0)") }, registered: { log.add("registered") })
    inner.value = 8
    #expect(log.items == ["7", "registered", "8"])
    #expect(outer.merge().replayLength == 1)
    observation.dispose()
  }

  @Test func registeredWaitsForTheOuterOnly() {
    let outer = LateRegistration<EventProducer<Int>>()
    let inner = EventProducer<Int>()
    outer.producer.next(inner)
    let log = Recorder<String>()
    let observation = outer.merge().observe({ log.add("\($0)") }, registered: { log.add("registered") })
    inner.next(1)
    outer.finish()
    inner.next(2)
    #expect(log.items == ["1", "registered", "2"])
    observation.dispose()
  }

  @Test func anInnerAddedFromInsideADeliveryKeepsTheOrder() {
    let outer = EventProducer<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>(replayLength: 1)
    second.next(20)
    let log = Recorder<String>()
    let observation = outer.merge().observe { value in
      log.add("begin \(value)")
      if value == 1 {
        outer.next(second)
        first.next(2)
      }
      log.add("end \(value)")
    }
    outer.next(first)
    first.next(1)
    // `second` arrives (and replays 20) before `first` delivers its queued 2: the outer was idle.
    #expect(log.items == ["begin 1", "end 1", "begin 20", "end 20", "begin 2", "end 2"])
    observation.dispose()
  }

  @Test func theSameInnerTwiceIsForwardedTwice() {
    let outer = EventProducer<EventProducer<Int>>()
    let inner = EventProducer<Int>()
    let log = Recorder<Int>()
    let observation = outer.merge().observe { log.add($0) }
    outer.next(inner)
    outer.next(inner)
    inner.next(1)
    #expect(log.items == [1, 1])
    #expect(inner.observerCount == 2)
    observation.dispose()
    #expect(inner.observerCount == 0)
  }

  @Test func disposingFromInsideTheObserverStopsAtOnce() {
    let outer = EventProducer<EventProducer<Int>>()
    let inner = EventProducer<Int>()
    let log = Recorder<Int>()
    var observation: (any DisposableType)?
    observation = outer.merge().observe { value in
      log.add(value)
      if value == 1 {
        inner.next(2)
        observation?.dispose()
      }
    }
    outer.next(inner)
    inner.next(1)
    inner.next(3)
    #expect(log.items == [1])
    #expect(outer.observerCount == 0 && inner.observerCount == 0)
  }

  // MARK: lifetimes

  @Test func keepsTheInnersAliveWhileTheOuterLivesAndReleasesThemOnDispose() {
    let outer = EventProducer<EventProducer<Int>>()
    weak var weakInner: EventProducer<Int>?
    weak var weakCaptured: Tracked?
    let log = Recorder<Int>()
    let observation: any DisposableType
    do {
      let captured = Tracked()
      weakCaptured = captured
      observation = outer.merge().observe { value in
        _ = captured
        log.add(value)
      }
      let inner = EventProducer<Int>(replayLength: 1)
      inner.next(5)
      weakInner = inner
      outer.next(inner)
    }
    #expect(weakInner != nil, "merge keeps the inner alive while it forwards it")
    weakInner?.next(6)
    #expect(log.items == [5, 6])
    observation.dispose()
    #expect(weakInner == nil, "disposing releases the inner")
    #expect(weakCaptured == nil, "disposing releases the observer")
    #expect(outer.observerCount == 0)
  }

  @Test func aDeallocatedOuterReleasesTheInnersAndTheObservation() {
    weak var weakOuter: EventProducer<EventProducer<Int>>?
    weak var weakInner: EventProducer<Int>?
    weak var weakCaptured: Tracked?
    let kept = EventProducer<Int>()
    let log = Recorder<Int>()
    do {
      let outer = EventProducer<EventProducer<Int>>()
      weakOuter = outer
      let captured = Tracked()
      weakCaptured = captured
      outer.merge().observe { value in
        _ = captured
        log.add(value)
      }
      let inner = EventProducer<Int>()
      weakInner = inner
      outer.next(inner)
      outer.next(kept)
    }
    #expect(weakOuter == nil)
    #expect(weakInner == nil, "once the outer is gone, the inners are no longer kept alive")
    kept.next(1)
    #expect(log.items == [1], "an inner alive elsewhere is still forwarded")
    #expect(weakCaptured != nil)
    #expect(kept.observerCount == 1)
  }

  @Test func theObservationEndsWhenTheOuterAndEveryInnerAreGone() {
    weak var weakCaptured: Tracked?
    do {
      let outer = EventProducer<EventProducer<Int>>()
      let inner = EventProducer<Int>()
      let captured = Tracked()
      weakCaptured = captured
      outer.merge().observe { _ in _ = captured }
      outer.next(inner)
    }
    #expect(weakCaptured == nil, "no reference cycle outlives the producers")
  }

  // MARK: merge(_:) of an array

  @Test func mergeOfAnArrayForwardsEveryProducerAndItsReplay() {
    let a = Observable("a0")
    let b = EventProducer<String>()
    let c = EventProducer<String>(replayLength: 2)
    c.next("c0")
    c.next("c1")
    let log = Recorder<String>()
    let merged = merge([a.map { $0 }, b.map { $0 }, c.map { $0 }])
    #expect(merged.replayLength == 3)
    let observation = merged.observe({ log.add($0) }, registered: { log.add("registered") })
    b.next("b1")
    a.value = "a1"
    c.next("c2")
    #expect(log.items == ["a0", "c0", "c1", "registered", "b1", "a1", "c2"])
    observation.dispose()
    #expect(a.observerCount == 0 && b.observerCount == 0 && c.observerCount == 0)
  }

  @Test func mergeOfAnArrayWaitsForEveryRegistration() {
    let late = LateRegistration<Int>()
    let plain = EventProducer<Int>()
    late.producer.next(1)
    let log = Recorder<String>()
    let observation = merge([AnyEventProducer(late), AnyEventProducer(plain)]).observe(
      { log.add("\($0)") },
      registered: { log.add("registered") }
    )
    plain.next(2)
    late.finish()
    #expect(log.items == ["1", "2", "registered"])
    observation.dispose()
  }

  @Test func mergeOfAnEmptyArrayRegistersAtOnce() {
    let log = Recorder<String>()
    let observation = merge([EventProducer<Int>]()).observe({ log.add("\($0)") }, registered: { log.add("registered") })
    #expect(log.items == ["registered"])
    observation.dispose()
  }

  @Test func mergeOfExistentialsOfDifferentTypes() {
    let numbers = EventProducer<Int>()
    let current = Observable(10)
    let text = EventProducer<String>()
    let log = Recorder<Int>()
    let producers: [any EventProducerType<Int>] = [numbers, current, text.map { $0.count }]
    let observation = merge(producers).observe { log.add($0) }
    numbers.next(1)
    text.next("abc")
    current.value = 11
    #expect(log.items == [10, 1, 3, 11])
    observation.dispose()
    #expect(numbers.observerCount == 0 && current.observerCount == 0 && text.observerCount == 0)
  }

  @Test func mergeOfAnArrayDoesNotKeepTheProducersAlive() {
    weak var weakProducer: EventProducer<Int>?
    weak var weakCaptured: Tracked?
    do {
      let producer = EventProducer<Int>()
      weakProducer = producer
      let captured = Tracked()
      weakCaptured = captured
      merge([producer]).observe { _ in _ = captured }
      producer.next(1)
    }
    #expect(weakProducer == nil && weakCaptured == nil)
  }

  @Test func aReentrantSendIntoAnotherMergedProducerIsQueued() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = merge([a, b]).observe { value in
      log.add("begin \(value)")
      if value == 1 {
        b.next(2)
        a.next(3)
      }
      log.add("end \(value)")
    }
    a.next(1)
    #expect(log.items == ["begin 1", "end 1", "begin 2", "end 2", "begin 3", "end 3"])
    observation.dispose()
  }

  // MARK: the end

  @Test func mergeEndsWhenTheOuterAndEveryInnerReceivedHaveEnded() {
    let outer = EventProducer<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = outer.merge().observe(into: log)
    outer.next(first)
    outer.next(second)
    first.next(1)
    first.finish()
    outer.finish()
    second.next(2)
    #expect(log.items == ["1", "2"], "the outer and one inner have ended: not yet")
    #expect(!observation.isDisposed)
    second.finish()
    second.next(3)
    #expect(log.items == ["1", "2", "end"])
    #expect(observation.isDisposed)
    #expect(outer.observerCount == 0 && first.observerCount == 0 && second.observerCount == 0)
  }

  @Test func mergeOfAnOuterThatEndsWithoutAnyInnerEndsAtOnce() {
    let outer = EventProducer<EventProducer<Int>>()
    let log = Recorder<String>()
    let observation = outer.merge().observe(into: log)
    outer.finish()
    #expect(log.items == ["end"] && observation.isDisposed)
    let late = outer.merge().observe {
      log.add("\($0)")
    } finished: {
      log.add("late end")
    }
    #expect(log.items == ["end", "late end"] && late.isDisposed, "observed after the end: ends at once")
  }

  @Test func mergeEndsWhenTheOuterIsDeallocatedAndTheInnersHaveEnded() {
    let inner = EventProducer<Int>()
    let log = Recorder<String>()
    var observation: (any DisposableType)?
    do {
      let outer = EventProducer<EventProducer<Int>>()
      observation = outer.merge().observe(into: log)
      outer.next(inner)
    }
    inner.next(1)
    inner.finish()
    #expect(log.items == ["1", "end"] && observation?.isDisposed == true)
  }

  @Test func mergeOfAnArrayEndsWhenAllHaveEnded() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>(replayLength: 1)
    b.next(0)
    b.finish()
    let log = Recorder<String>()
    let observation = merge([a, b]).observe(into: log)
    a.next(1)
    #expect(log.items == ["0", "1"], "an already ended producer replays, then only waits for the others")
    a.finish()
    #expect(log.items == ["0", "1", "end"] && observation.isDisposed)
  }

  @Test func mergeOfAnEmptyArrayEndsAtOnce() {
    let log = Recorder<String>()
    let observation = merge([EventProducer<Int>]()).observe(
      with: EventObserver({ log.add("\($0)") }, finished: { log.add("end") }, registered: { log.add("registered") })
    )
    #expect(log.items == ["registered", "end"] && observation.isDisposed)
  }

  @Test func mergeOfExistentialsEnds() {
    let a = EventProducer<Int>()
    let b = EventProducer<String>()
    let log = Recorder<String>()
    let producers: [any EventProducerType<Int>] = [a, b.map { $0.count }]
    merge(producers).observe(into: log)
    b.finish()
    a.next(1)
    a.finish()
    #expect(log.items == ["1", "end"])
  }

  @Test func theEndComesAfterAnEventSentFromInsideADelivery() {
    let outer = EventProducer<EventProducer<Int>>()
    let inner = EventProducer<Int>()
    let log = Recorder<String>()
    outer.merge().observe { value in
      log.add("\(value)")
      if value == 1 {
        inner.next(2)
        inner.finish()
        outer.finish()
      }
    } finished: {
      log.add("end")
    }
    outer.next(inner)
    inner.next(1)
    #expect(log.items == ["1", "2", "end"])
  }

  @Test func disposeIsNotAnEnd() {
    let outer = EventProducer<EventProducer<Int>>()
    let log = Recorder<String>()
    let observation = outer.merge().observe(into: log)
    observation.dispose()
    outer.finish()
    #expect(log.items.isEmpty)
  }

  // MARK: the state machine, with no threads

  /// The action's inner to observe, if it says to observe one.
  static func observed(_ action: MergeStateMachine<Int>.Action) -> Int? {
    guard case .observe(let inner) = action else { return nil }
    return inner
  }

  /// Whether the action ends the observation (`end`, or a release that then ends).
  static func ends(_ action: MergeStateMachine<Int>.Action) -> Bool {
    switch action {
    case .end: true
    case .release(_, let thenEnd): thenEnd
    default: false
    }
  }

  @Test func stateMachineRetainsInnersUntilTheOuterEnds() {
    var machine = MergeStateMachine<Int>(registrations: 1, retainsInners: true)
    #expect(Self.observed(machine.innerReceived(1)) == 1)
    _ = machine.innerReceived(2)
    #expect(machine.retained == [1, 2])
    guard case .callRegistered = machine.registrationFinished() else {
      Issue.record("registered after the only registration")
      return
    }
    guard case .release([1, 2], thenEnd: false) = machine.outerEnded() else {
      Issue.record("the outer's end releases the inners")
      return
    }
    #expect(Self.observed(machine.innerReceived(3)) == 3, "an inner after the outer's end is observed")
    #expect(machine.retained.isEmpty, "and not kept")
  }

  @Test func stateMachineEndsWhenTheOuterAndEveryInnerHaveEnded() {
    var machine = MergeStateMachine<Int>(registrations: 1, retainsInners: true)
    _ = machine.innerReceived(1)
    _ = machine.innerReceived(2)
    #expect(Self.ends(machine.innerEnded()) == false, "an inner's end alone ends nothing")
    #expect(Self.ends(machine.outerEnded()) == false, "the other inner is still live")
    #expect(Self.ends(machine.innerEnded()) == true)
  }

  @Test func stateMachineWithAMaximumObservesTheWaitingInnersInTurn() {
    var machine = MergeStateMachine<Int>(registrations: 1, retainsInners: true, maxConcurrent: 2)
    #expect(Self.observed(machine.innerReceived(1)) == 1 && Self.observed(machine.innerReceived(2)) == 2)
    #expect(Self.observed(machine.innerReceived(3)) == nil, "two observed: the third waits its turn")
    #expect(Self.ends(machine.outerEnded()) == false)
    #expect(Self.observed(machine.innerEnded()) == 3, "the third takes the place of the one that ended")
    #expect(Self.ends(machine.innerEnded()) == false)
    #expect(Self.ends(machine.innerEnded()) == true, "the outer and every inner have ended")
    var empty = MergeStateMachine<Int>(registrations: 1, retainsInners: true)
    #expect(Self.ends(empty.outerEnded()) == true, "an outer that ends without any inner ends at once")
  }

  @Test func stateMachineOfAnArrayCountsEveryRegistration() {
    var machine = MergeStateMachine<Int>(registrations: 3, retainsInners: false)
    _ = machine.innerReceived(1)
    #expect(machine.retained.isEmpty)
    guard case .ignore = machine.registrationFinished(), case .ignore = machine.registrationFinished(),
      case .callRegistered = machine.registrationFinished()
    else {
      Issue.record("registered after the third registration")
      return
    }
  }

  @Test func stateMachineStopsOnAnInnerEndWithNoneObserved() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = MergeStateMachine<Int>(registrations: 1, retainsInners: true)
      _ = machine.innerEnded()
    }
    #expect(exitTestStandardError(result).contains("MergeStateMachine.innerEnded: an inner ended with none observed"))
  }
}
