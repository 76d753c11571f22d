import Testing
@testable import Bond

@Suite struct FlatMapTests {
  /// The "Combining" block of the contract's usage, whole.
  @Test func contractCombiningBlock() {
    let email = Observable("")
    let pass = Observable("")
    let enabled = Recorder<Bool>()
    combineLatest(email, pass).map { email, pass in !email.isEmpty && !pass.isEmpty }.observe { enabled.add($0) }
    email.value = "kirk@enterprise"
    pass.value = "ncc1701"
    #expect(enabled.items == [false, false, true])
    let a = EventProducer<Int>()
    let b = EventProducer<String>()
    let c = EventProducer<Bool>()
    let triples = Recorder<String>()
    combineLatest(a, b, c).map { "\($0)\($1)\($2)" }.observe { triples.add($0) }
    a.next(1)
    b.next("x")
    a.next(2)
    c.next(true)
    b.next("y")
    #expect(triples.items == ["2xtrue", "2ytrue"])
    let pairs = Recorder<String>()
    a.combineLatestWith(b).observe { pairs.add("\($0.0)\($0.1)") }
    a.next(3)
    b.next("z")
    #expect(pairs.items == ["3z"])

    let outer = EventProducer<EventProducer<Int>>()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let latest = Recorder<Int>()
    let merged = Recorder<Int>()
    let all = Recorder<Int>()
    outer.switchToLatest().observe { latest.add($0) }
    outer.merge().observe { merged.add($0) }
    merge([first, second]).observe { all.add($0) }
    outer.next(first)
    first.next(1)
    outer.next(second)
    first.next(2)
    second.next(3)
    #expect(latest.items == [1, 3])
    #expect(merged.items == [1, 2, 3] && all.items == [1, 2, 3])
    let keys = EventProducer<Int>()
    let flat = Recorder<Int>()
    keys.flatMap(.latest) { [first, second][$0] }.observe { flat.add($0) }
    keys.flatMap(.merge) { [first, second][$0] }.observe { flat.add($0 * 10) }
    keys.next(0)
    first.next(4)
    keys.next(1)
    first.next(5)
    second.next(6)
    #expect(flat.items == [4, 40, 50, 6, 60])
  }

  @Test func latestForwardsOnlyTheLatestInner() {
    let keys = EventProducer<String>()
    let sources = ["a": Observable("a0"), "b": Observable("b0")]
    let log = Recorder<String>()
    let observation = keys.flatMap(.latest) { sources[$0]! }.observe { log.add($0) }
    keys.next("a")
    sources["a"]!.value = "a1"
    keys.next("b")
    sources["a"]!.value = "a2"
    sources["b"]!.value = "b1"
    #expect(log.items == ["a0", "a1", "b0", "b1"])
    observation.dispose()
    #expect(keys.observerCount == 0 && sources.values.allSatisfy { $0.observerCount == 0 })
  }

  @Test func mergeForwardsEveryInner() {
    let keys = EventProducer<String>()
    let sources = ["a": Observable("a0"), "b": Observable("b0")]
    let log = Recorder<String>()
    let observation = keys.flatMap(.merge) { sources[$0]! }.observe { log.add($0) }
    keys.next("a")
    sources["a"]!.value = "a1"
    keys.next("b")
    sources["a"]!.value = "a2"
    sources["b"]!.value = "b1"
    #expect(log.items == ["a0", "a1", "b0", "a2", "b1"])
    observation.dispose()
    #expect(keys.observerCount == 0 && sources.values.allSatisfy { $0.observerCount == 0 })
  }

  @Test(arguments: [FlatMapStrategy.latest, .merge])
  func theTransformRunsOncePerEventAndObservation(strategy: FlatMapStrategy) {
    let keys = EventProducer<Int>()
    let calls = Recorder<Int>()
    let flattened = keys.flatMap(strategy) { key -> Observable<Int> in
      calls.add(key)
      return Observable(key * 100)
    }
    let log = Recorder<Int>()
    let observation = flattened.observe { log.add($0) }
    keys.next(1)
    keys.next(2)
    #expect(calls.items == [1, 2])
    #expect(log.items == [100, 200])
    observation.dispose()
  }

  @Test(arguments: [FlatMapStrategy.latest, .merge])
  func registeredAndReplayFollowTheUpstream(strategy: FlatMapStrategy) {
    let key = Observable(3)
    let log = Recorder<String>()
    let flattened = key.flatMap(strategy) { Observable("v\($0)") }
    #expect(flattened.replayLength == 1)
    let observation = flattened.observe({ log.add($0) }, registered: { log.add("registered") })
    key.value = 4
    #expect(log.items == ["v3", "registered", "v4"])
    observation.dispose()
  }

  @Test(arguments: [FlatMapStrategy.latest, .merge])
  func disposeReleasesTheTransformTheInnersAndTheObserver(strategy: FlatMapStrategy) {
    let keys = EventProducer<Int>()
    weak var weakInTransform: Tracked?
    weak var weakInObserver: Tracked?
    weak var weakInner: EventProducer<Int>?
    let observation: any DisposableType
    do {
      let inTransform = Tracked()
      let inObserver = Tracked()
      weakInTransform = inTransform
      weakInObserver = inObserver
      observation = keys.flatMap(strategy) { _ -> EventProducer<Int> in
        _ = inTransform
        let inner = EventProducer<Int>(replayLength: 1)
        inner.next(1)
        weakInner = inner
        return inner
      }.observe { _ in _ = inObserver }
      keys.next(0)
    }
    #expect(weakInner != nil && weakInTransform != nil && weakInObserver != nil)
    observation.dispose()
    #expect(weakInner == nil && weakInTransform == nil && weakInObserver == nil)
    #expect(keys.observerCount == 0)
  }

  @Test(arguments: [FlatMapStrategy.latest, .merge])
  func aDeallocatedUpstreamReleasesTheObservation(strategy: FlatMapStrategy) {
    weak var weakInObserver: Tracked?
    do {
      let keys = EventProducer<Int>()
      let inObserver = Tracked()
      weakInObserver = inObserver
      keys.flatMap(strategy) { Observable($0) }.observe { _ in _ = inObserver }
      keys.next(1)
    }
    #expect(weakInObserver == nil)
  }

  // MARK: the end

  @Test func latestEndsWhenTheUpstreamAndTheLatestInnerHaveEnded() {
    let ids = EventProducer<Int>()
    let inners = (0..<2).map { _ in EventProducer<String>() }
    let log = Recorder<String>()
    let observation = ids.flatMap(.latest) { inners[$0] }.observe(into: log)
    ids.next(0)
    ids.next(1)
    ids.finish()
    inners[0].finish()
    inners[1].next("b")
    #expect(log.items == ["b"] && !observation.isDisposed)
    inners[1].finish()
    #expect(log.items == ["b", "end"] && observation.isDisposed)
  }

  @Test func mergeEndsWhenTheUpstreamAndEveryInnerHaveEnded() {
    let ids = EventProducer<Int>()
    let inners = (0..<2).map { _ in EventProducer<String>() }
    let log = Recorder<String>()
    let observation = ids.flatMap(.merge) { inners[$0] }.observe(into: log)
    ids.next(0)
    ids.next(1)
    ids.finish()
    inners[1].finish()
    inners[0].next("a")
    #expect(log.items == ["a"] && !observation.isDisposed)
    inners[0].finish()
    #expect(log.items == ["a", "end"] && observation.isDisposed)
  }

  @Test(arguments: [FlatMapStrategy.latest, .merge])
  func anUpstreamThatEndsWithoutAnyInnerEndsAtOnce(strategy: FlatMapStrategy) {
    let ids = EventProducer<Int>()
    let log = Recorder<String>()
    ids.flatMap(strategy) { _ in EventProducer<String>() }.observe(into: log)
    ids.finish()
    #expect(log.items == ["end"])
  }
}
