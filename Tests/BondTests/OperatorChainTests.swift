import Testing
@testable import Bond

/// The "Synchronous operators" block of the contract's Usage.swift, and chains of operators.
@Suite struct OperatorChainTests {
  @Test func contractSynchronousOperators() {
    let numbers = EventProducer<Int>()
    let text = Recorder<String>()
    let chain = numbers.map { $0 * 2 }.filter { $0 > 2 }.map { "\($0)" }.observe { text.add($0) }
    numbers.next(1)
    numbers.next(2)
    numbers.next(3)
    #expect(text.items == ["4", "6"], "map filter map")
    chain.dispose()
    let shaped = Recorder<Int>()
    numbers.rewrite(7).skip(1).startWith(0).observe { shaped.add($0) }
    numbers.next(1)
    numbers.next(2)
    #expect(shaped.items == [0, 7], "rewrite skip startWith")
    let optionals = EventProducer<Int?>()
    let sums = Recorder<Int>()
    optionals.ignoreNil().distinct().reduce(0) { $0 + $1 }.observe { sums.add($0) }
    for value in [1, nil, 1, 2, 2, 3] as [Int?] { optionals.next(value) }
    #expect(sums.items == [1, 3, 6], "ignoreNil distinct reduce")
    let calls = Recorder<Int>()
    let source = EventProducer<Int>()
    let shared = source.map { value -> Int in
      calls.add(value)
      return value
    }.share(replayLength: 1)
    shared.observe { _ in }
    shared.observe { _ in }
    source.next(1)
    #expect(calls.items == [1], "share observes its upstream once")
  }

  @Test func replayLengthThroughAChain() {
    let producer = EventProducer<Int>(replayLength: 3)
    #expect(producer.map { $0 }.skip(1).startWith(0).replayLength == 3)
    #expect(producer.skip(5).startWith(0).startWith(1).replayLength == 2)
    #expect(producer.filter { _ in true }.ignoreNilCompatible.replayLength == 3)
  }

  @Test func reentrantSendThroughAChainIsQueued() {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    let a = producer.map { $0 * 10 }.observe { value in
      log.add("a\(value)")
      if value == 10 { producer.next(2) }
    }
    let b = producer.filter { _ in true }.observe { log.add("b\($0)") }
    producer.next(1)
    #expect(log.items == ["a10", "b1", "a20", "b2"])
    a.dispose()
    b.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func disposingFromInsideTheObserverStopsDelivery() {
    let producer = EventProducer<Int>()
    let seen = Recorder<Int>()
    let serial = SerialDisposable()
    serial.otherDisposable = producer.skip(1).map { $0 }.observe { value in
      seen.add(value)
      serial.dispose()
    }
    producer.next(1)
    producer.next(2)
    producer.next(3)
    #expect(seen.items == [2])
    #expect(producer.observerCount == 0)
  }

  @Test func aChainHoldsItsUpstreamAndNoCycle() {
    weak var weakProducer: EventProducer<Int>?
    weak var weakCapture: Tracked?
    do {
      let producer = EventProducer<Int>()
      weakProducer = producer
      let tracked = Tracked()
      weakCapture = tracked
      let chain = producer.map { $0 }.filter { _ in
        _ = tracked
        return true
      }.skip(1)
      _ = chain.observe { _ in }
      #expect(weakProducer != nil)
    }
    #expect(weakProducer == nil)
    #expect(weakCapture == nil)
  }
}

extension EventProducerType {
  /// `map { Optional($0) }.ignoreNil()`: checks the replay length through `ignoreNil`.
  fileprivate var ignoreNilCompatible: IgnoreNil<Map<Self, Event?>> { map { Optional($0) }.ignoreNil() }
}
