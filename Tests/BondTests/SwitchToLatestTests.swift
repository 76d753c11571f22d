import Testing
@testable import Bond

@Suite struct SwitchToLatestTests {
  @Test func contractSwitchToLatest() {
    let outer = EventProducer<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let latest = Recorder<Int>()
    let observation = outer.switchToLatest().observe { latest.add($0) }
    outer.next(first)
    first.next(1)
    outer.next(second)
    first.next(2)
    second.next(3)
    #expect(latest.items == [1, 3])
    observation.dispose()
    #expect(outer.observerCount == 0 && first.observerCount == 0 && second.observerCount == 0)
  }

  @Test func theOldInnersObservationIsDisposedAndReleasedAtTheSwitch() {
    let outer = EventProducer<EventProducer<Int>>()
    let second = EventProducer<Int>()
    weak var weakFirst: EventProducer<Int>?
    let log = Recorder<Int>()
    let observation = outer.switchToLatest().observe { log.add($0) }
    do {
      let first = EventProducer<Int>()
      weakFirst = first
      outer.next(first)
      first.next(1)
      #expect(first.observerCount == 1)
    }
    #expect(weakFirst != nil, "the current inner is kept alive")
    outer.next(second)
    #expect(weakFirst == nil, "the previous inner is released at the switch")
    second.next(2)
    #expect(log.items == [1, 2])
    observation.dispose()
  }

  @Test func aNewInnersReplayIsDeliveredAtTheSwitch() {
    let outer = EventProducer<Observable<String>>()
    let log = Recorder<String>()
    let observation = outer.switchToLatest().observe { log.add($0) }
    let a = Observable("a0")
    let b = Observable("b0")
    outer.next(a)
    a.value = "a1"
    outer.next(b)
    a.value = "a2"
    b.value = "b1"
    outer.next(a)
    #expect(log.items == ["a0", "a1", "b0", "b1", "a2"])
    #expect(a.observerCount == 1 && b.observerCount == 0)
    observation.dispose()
    #expect(a.observerCount == 0)
  }

  @Test func switchingToTheSameInnerResubscribes() {
    let outer = EventProducer<Observable<Int>>()
    let inner = Observable(1)
    let log = Recorder<Int>()
    let observation = outer.switchToLatest().observe { log.add($0) }
    outer.next(inner)
    outer.next(inner)
    inner.value = 2
    #expect(log.items == [1, 1, 2])
    #expect(inner.observerCount == 1)
    observation.dispose()
  }

  @Test func anEventQueuedBeforeTheSwitchIsDeliveredOneQueuedAfterIsNot() {
    let outer = LateRegistration<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>(replayLength: 1)
    outer.producer.next(first)
    let log = Recorder<String>()
    // `registered` runs inside the observation's delivery while the outer and `first` are idle:
    // what they send then is queued behind it in the observation's serializer, in this order.
    let observation = outer.switchToLatest().observe(
      { log.add("\($0)") },
      registered: {
        log.add("registered")
        first.next(10)
        outer.producer.next(second)
        first.next(11)  // sent by the old inner after the switch arrived: never forwarded
        second.next(20)  // `second` is not observed yet: it arrives as its replay
      }
    )
    outer.finish()
    #expect(log.items == ["registered", "10", "20"])
    #expect(first.observerCount == 0 && second.observerCount == 1)
    observation.dispose()
  }

  @Test func aSwitchFromInsideTheOldInnersDeliveryStopsItAtOnce() {
    let outer = EventProducer<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>(replayLength: 1)
    second.next(20)
    let log = Recorder<String>()
    let observation = outer.switchToLatest().observe { value in
      log.add("begin \(value)")
      if value == 1 {
        first.next(2)
        outer.next(second)
        first.next(3)
      }
      log.add("end \(value)")
    }
    outer.next(first)
    first.next(1)
    #expect(log.items == ["begin 1", "end 1", "begin 20", "end 20"])
    #expect(first.observerCount == 0 && second.observerCount == 1)
    observation.dispose()
  }

  @Test func registeredWaitsForTheOuter() {
    let inner = Observable(1)
    let outer = LateRegistration<Observable<Int>>()
    outer.producer.next(inner)
    let log = Recorder<String>()
    let observation = outer.switchToLatest().observe({ log.add("\($0)") }, registered: { log.add("registered") })
    inner.value = 2
    outer.finish()
    inner.value = 3
    #expect(log.items == ["1", "2", "registered", "3"])
    #expect(outer.switchToLatest().replayLength == 1)
    observation.dispose()
  }

  @Test func disposingFromInsideTheObserverStopsAtOnce() {
    let outer = EventProducer<EventProducer<Int>>()
    let inner = EventProducer<Int>()
    let log = Recorder<Int>()
    var observation: (any DisposableType)?
    observation = outer.switchToLatest().observe { value in
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

  @Test func disposeReleasesEverything() {
    let outer = EventProducer<EventProducer<Int>>()
    weak var weakInner: EventProducer<Int>?
    weak var weakCaptured: Tracked?
    let observation: any DisposableType
    do {
      let captured = Tracked()
      weakCaptured = captured
      observation = outer.switchToLatest().observe { _ in _ = captured }
      let inner = EventProducer<Int>()
      weakInner = inner
      outer.next(inner)
      inner.next(1)
    }
    #expect(weakInner != nil && weakCaptured != nil)
    observation.dispose()
    #expect(weakInner == nil && weakCaptured == nil)
    #expect(outer.observerCount == 0)
  }

  @Test func aDeallocatedOuterReleasesTheCurrentInner() {
    weak var weakInner: EventProducer<Int>?
    weak var weakCaptured: Tracked?
    let kept = EventProducer<Int>()
    let log = Recorder<Int>()
    do {
      let outer = EventProducer<EventProducer<Int>>()
      let captured = Tracked()
      weakCaptured = captured
      outer.switchToLatest().observe { value in
        _ = captured
        log.add(value)
      }
      outer.next(kept)
      kept.next(1)
    }
    kept.next(2)
    #expect(log.items == [1, 2], "the latest inner, alive elsewhere, is still forwarded")
    do {
      let outer = EventProducer<EventProducer<Int>>()
      outer.switchToLatest().observe { _ in }
      let inner = EventProducer<Int>()
      weakInner = inner
      outer.next(inner)
    }
    #expect(weakInner == nil, "once the outer is gone, the inner is no longer kept alive")
    #expect(weakCaptured != nil)
  }

  // MARK: the state machine, with no threads

  typealias Machine = SwitchToLatestStateMachine<String>
  typealias Action = Machine.Action<Int>

  /// The generation and the released inner of a switch, if the action is one.
  static func switched(_ action: Action) -> (generation: Int, released: String?)? {
    guard case .switchTo(_, let generation, let released) = action else { return nil }
    return (generation, released)
  }

  /// Whether the action ends the observation (`end`, or a release that then ends).
  static func ends(_ action: Action) -> Bool {
    switch action {
    case .end: true
    case .release(_, let thenEnd): thenEnd
    default: false
    }
  }

  static func delivered(_ action: Action) -> Int? {
    guard case .deliver(let event) = action else { return nil }
    return event
  }

  @Test func stateMachineForwardsOnlyTheCurrentGeneration() {
    var machine = Machine()
    let first = Self.switched(machine.innerReceived("a"))
    #expect(first?.generation == 1 && first?.released == nil)
    #expect(Self.delivered(machine.received(7, generation: 1)) == 7)
    let second = Self.switched(machine.innerReceived("b"))
    #expect(second?.generation == 2 && second?.released == "a")
    #expect(
      Self.delivered(machine.received(7, generation: 1)) == nil
        && Self.delivered(machine.received(8, generation: 2)) == 8
    )
    guard case .release("b", thenEnd: false) = machine.outerEnded() as Action else {
      Issue.record("the outer's end releases the current inner")
      return
    }
    let third = Self.switched(machine.innerReceived("c"))
    #expect(third?.generation == 3 && third?.released == nil, "an inner after the outer's end: observed, not kept")
  }

  @Test func stateMachineEndsWhenTheOuterAndTheLatestInnerHaveEnded() {
    var machine = Machine()
    _ = machine.innerReceived("a") as Action
    _ = machine.innerReceived("b") as Action
    #expect(Self.ends(machine.innerEnded(generation: 2)) == false, "an inner's end alone ends nothing")
    _ = machine.innerReceived("c") as Action
    #expect(Self.ends(machine.outerEnded()) == false, "the latest inner has not ended")
    #expect(Self.ends(machine.innerEnded(generation: 2)) == false, "an older inner's end is ignored")
    #expect(Self.ends(machine.innerEnded(generation: 3)) == true)
    var ended = Machine()
    _ = ended.innerReceived("a") as Action
    #expect(Self.ends(ended.innerEnded(generation: 1)) == false)
    #expect(Self.ends(ended.outerEnded()) == true, "the latest inner had ended already")
    var empty = Machine()
    #expect(Self.ends(empty.outerEnded()) == true, "an outer that ends without any inner ends at once")
  }

  @Test func stateMachineStopsWhenTheOuterEndsTwice() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = SwitchToLatestStateMachine<String>()
      _ = machine.outerEnded() as SwitchToLatestStateMachine<String>.Action<Int>
      _ = machine.outerEnded() as SwitchToLatestStateMachine<String>.Action<Int>
    }
    #expect(exitTestStandardError(result).contains("SwitchToLatestStateMachine.outerEnded: the outer ended twice"))
  }

  // MARK: the end

  @Test func endsWhenTheOuterAndTheLatestInnerHaveEnded() {
    let outer = EventProducer<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = outer.switchToLatest().observe(into: log)
    outer.next(first)
    first.next(1)
    first.finish()
    #expect(log.items == ["1"], "an inner's end alone ends nothing")
    outer.next(second)
    outer.finish()
    second.next(2)
    #expect(log.items == ["1", "2"] && !observation.isDisposed)
    second.finish()
    #expect(log.items == ["1", "2", "end"] && observation.isDisposed)
    #expect(outer.observerCount == 0 && second.observerCount == 0)
  }

  @Test func endsWhenTheOuterEndsAfterTheLatestInnerHasEnded() {
    let outer = EventProducer<EventProducer<Int>>(replayLength: 1)
    let inner = EventProducer<Int>(replayLength: 1)
    inner.next(1)
    inner.finish()
    outer.next(inner)
    let log = Recorder<String>()
    let observation = outer.switchToLatest().observe(into: log)
    #expect(log.items == ["1"])
    outer.finish()
    #expect(log.items == ["1", "end"] && observation.isDisposed)
  }

  @Test func anOldInnersEndIsIgnored() {
    let outer = EventProducer<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let log = Recorder<String>()
    outer.switchToLatest().observe(into: log)
    outer.next(first)
    outer.next(second)
    outer.finish()
    first.finish()
    second.next(2)
    #expect(log.items == ["2"])
    second.finish()
    #expect(log.items == ["2", "end"])
  }

  @Test func anOuterThatEndsWithoutAnyInnerEndsAtOnce() {
    let outer = EventProducer<EventProducer<Int>>()
    let log = Recorder<String>()
    let observation = outer.switchToLatest().observe(into: log)
    outer.finish()
    #expect(log.items == ["end"] && observation.isDisposed)
  }

  @Test func disposeIsNotAnEnd() {
    let outer = EventProducer<EventProducer<Int>>()
    let log = Recorder<String>()
    let observation = outer.switchToLatest().observe(into: log)
    observation.dispose()
    outer.finish()
    #expect(log.items.isEmpty)
  }
}
