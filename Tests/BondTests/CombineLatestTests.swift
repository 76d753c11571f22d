import Testing
@testable import Bond

/// The components of a tuple, as text, in order (to check every position of any arity).
private func components(_ tuple: Any) -> [String] {
  Mirror(reflecting: tuple).children.map { String(describing: $0.value) }
}

/// A value type of its own, to check that positions keep their types.
private struct Point: Equatable, CustomStringConvertible {
  var x: Int, y: Int
  var description: String { "P(\(x),\(y))" }
}

/// What an arity test sees: first one tuple once every source has sent `initial`, then, after the
/// source at position k has sent `updated[k]`, the tuple with positions 0...k updated.
private func expectArity(
  _ log: Recorder<[String]>,
  initial: [String],
  updated: [String],
  sourceLocation: SourceLocation = #_sourceLocation
) {
  var expected = [initial]
  for position in updated.indices {
    expected.append(Array(updated[...position] + initial[(position + 1)...]))
  }
  #expect(log.items == expected, sourceLocation: sourceLocation)
}

@Suite struct CombineLatestTests {
  // MARK: the contract's usage

  @Test func contractCombining() {
    let email = Observable("")
    let pass = Observable("")
    let enabled = Recorder<Bool>()
    let first = combineLatest(email, pass).map { email, pass in !email.isEmpty && !pass.isEmpty }.observe {
      enabled.add($0)
    }
    email.value = "kirk@enterprise"
    pass.value = "ncc1701"
    #expect(enabled.items == [false, false, true])

    let a = EventProducer<Int>()
    let b = EventProducer<String>()
    let c = EventProducer<Bool>()
    let triples = Recorder<String>()
    let second = combineLatest(a, b, c).map { "\($0)\($1)\($2)" }.observe { triples.add($0) }
    a.next(1)
    b.next("x")
    a.next(2)
    c.next(true)
    b.next("y")
    #expect(triples.items == ["2xtrue", "2ytrue"])
    let pairs = Recorder<String>()
    let third = a.combineLatestWith(b).observe { pairs.add("\($0.0)\($0.1)") }
    a.next(3)
    b.next("z")
    #expect(pairs.items == ["3z"])

    first.dispose()
    second.dispose()
    third.dispose()
    #expect(email.observerCount == 0 && pass.observerCount == 0)
    #expect(a.observerCount == 0 && b.observerCount == 0 && c.observerCount == 0)
  }

  // MARK: every arity, distinct values and types per position

  @Test func arity2() {
    let p1 = EventProducer<Int>()
    let p2 = EventProducer<String>()
    let log = Recorder<[String]>()
    let observation = combineLatest(p1, p2).observe { log.add(components($0)) }
    p1.next(1)
    #expect(log.items.isEmpty)
    p2.next("two")
    p1.next(11)
    p2.next("twenty")
    expectArity(log, initial: ["1", "two"], updated: ["11", "twenty"])
    observation.dispose()
    #expect(p1.observerCount == 0 && p2.observerCount == 0)
  }

  @Test func arity3() {
    let p1 = EventProducer<Int>()
    let p2 = EventProducer<String>()
    let p3 = EventProducer<Double>()
    let log = Recorder<[String]>()
    let observation = combineLatest(p1, p2, p3).observe { log.add(components($0)) }
    p1.next(1)
    p2.next("two")
    #expect(log.items.isEmpty)
    p3.next(3.5)
    p1.next(11)
    p2.next("twenty")
    p3.next(33.5)
    expectArity(log, initial: ["1", "two", "3.5"], updated: ["11", "twenty", "33.5"])
    observation.dispose()
    #expect(p1.observerCount == 0 && p2.observerCount == 0 && p3.observerCount == 0)
  }

  @Test func arity4() {
    let p1 = EventProducer<Int>()
    let p2 = EventProducer<String>()
    let p3 = EventProducer<Double>()
    let p4 = EventProducer<Bool>()
    let log = Recorder<[String]>()
    let observation = combineLatest(p1, p2, p3, p4).observe { log.add(components($0)) }
    p1.next(1)
    p2.next("two")
    p3.next(3.5)
    #expect(log.items.isEmpty)
    p4.next(false)
    p1.next(11)
    p2.next("twenty")
    p3.next(33.5)
    p4.next(true)
    expectArity(log, initial: ["1", "two", "3.5", "false"], updated: ["11", "twenty", "33.5", "true"])
    observation.dispose()
    #expect([p1.observerCount, p2.observerCount, p3.observerCount, p4.observerCount] == [0, 0, 0, 0])
  }

  @Test func arity5() {
    let p1 = EventProducer<Int>()
    let p2 = EventProducer<String>()
    let p3 = EventProducer<Double>()
    let p4 = EventProducer<Bool>()
    let p5 = EventProducer<Character>()
    let log = Recorder<[String]>()
    let observation = combineLatest(p1, p2, p3, p4, p5).observe { log.add(components($0)) }
    p1.next(1)
    p2.next("two")
    p3.next(3.5)
    p4.next(false)
    #expect(log.items.isEmpty)
    p5.next("e")
    p1.next(11)
    p2.next("twenty")
    p3.next(33.5)
    p4.next(true)
    p5.next("E")
    expectArity(log, initial: ["1", "two", "3.5", "false", "e"], updated: ["11", "twenty", "33.5", "true", "E"])
    observation.dispose()
    #expect(
      [p1.observerCount, p2.observerCount, p3.observerCount, p4.observerCount, p5.observerCount] == [0, 0, 0, 0, 0]
    )
  }

  @Test func arity6() {
    let p1 = EventProducer<Int>()
    let p2 = EventProducer<String>()
    let p3 = EventProducer<Double>()
    let p4 = EventProducer<Bool>()
    let p5 = EventProducer<Character>()
    let p6 = EventProducer<[Int]>()
    let log = Recorder<[String]>()
    let observation = combineLatest(p1, p2, p3, p4, p5, p6).observe { log.add(components($0)) }
    p1.next(1)
    p2.next("two")
    p3.next(3.5)
    p4.next(false)
    p5.next("e")
    #expect(log.items.isEmpty)
    p6.next([6])
    p1.next(11)
    p2.next("twenty")
    p3.next(33.5)
    p4.next(true)
    p5.next("E")
    p6.next([6, 6])
    expectArity(
      log,
      initial: ["1", "two", "3.5", "false", "e", "[6]"],
      updated: ["11", "twenty", "33.5", "true", "E", "[6, 6]"]
    )
    observation.dispose()
    #expect(
      [p1.observerCount, p2.observerCount, p3.observerCount, p4.observerCount, p5.observerCount, p6.observerCount] == [
        0, 0, 0, 0, 0, 0,
      ]
    )
  }

  @Test func arity7() {
    let p1 = EventProducer<Int>()
    let p2 = EventProducer<String>()
    let p3 = EventProducer<Double>()
    let p4 = EventProducer<Bool>()
    let p5 = EventProducer<Character>()
    let p6 = EventProducer<[Int]>()
    let p7 = EventProducer<UInt8>()
    let log = Recorder<[String]>()
    let observation = combineLatest(p1, p2, p3, p4, p5, p6, p7).observe { log.add(components($0)) }
    p1.next(1)
    p2.next("two")
    p3.next(3.5)
    p4.next(false)
    p5.next("e")
    p6.next([6])
    #expect(log.items.isEmpty)
    p7.next(7)
    p1.next(11)
    p2.next("twenty")
    p3.next(33.5)
    p4.next(true)
    p5.next("E")
    p6.next([6, 6])
    p7.next(77)
    expectArity(
      log,
      initial: ["1", "two", "3.5", "false", "e", "[6]", "7"],
      updated: ["11", "twenty", "33.5", "true", "E", "[6, 6]", "77"]
    )
    observation.dispose()
    #expect(
      [
        p1.observerCount, p2.observerCount, p3.observerCount, p4.observerCount, p5.observerCount, p6.observerCount,
        p7.observerCount,
      ] == [0, 0, 0, 0, 0, 0, 0]
    )
  }

  @Test func arity8() {
    let p1 = EventProducer<Int>()
    let p2 = EventProducer<String>()
    let p3 = EventProducer<Double>()
    let p4 = EventProducer<Bool>()
    let p5 = EventProducer<Character>()
    let p6 = EventProducer<[Int]>()
    let p7 = EventProducer<UInt8>()
    let p8 = EventProducer<Float>()
    let log = Recorder<[String]>()
    let observation = combineLatest(p1, p2, p3, p4, p5, p6, p7, p8).observe { log.add(components($0)) }
    p1.next(1)
    p2.next("two")
    p3.next(3.5)
    p4.next(false)
    p5.next("e")
    p6.next([6])
    p7.next(7)
    #expect(log.items.isEmpty)
    p8.next(8.25)
    p1.next(11)
    p2.next("twenty")
    p3.next(33.5)
    p4.next(true)
    p5.next("E")
    p6.next([6, 6])
    p7.next(77)
    p8.next(88.25)
    expectArity(
      log,
      initial: ["1", "two", "3.5", "false", "e", "[6]", "7", "8.25"],
      updated: ["11", "twenty", "33.5", "true", "E", "[6, 6]", "77", "88.25"]
    )
    observation.dispose()
    #expect(
      [
        p1.observerCount, p2.observerCount, p3.observerCount, p4.observerCount, p5.observerCount, p6.observerCount,
        p7.observerCount, p8.observerCount,
      ] == [0, 0, 0, 0, 0, 0, 0, 0]
    )
  }

  @Test func arity9() {
    let p1 = EventProducer<Int>()
    let p2 = EventProducer<String>()
    let p3 = EventProducer<Double>()
    let p4 = EventProducer<Bool>()
    let p5 = EventProducer<Character>()
    let p6 = EventProducer<[Int]>()
    let p7 = EventProducer<UInt8>()
    let p8 = EventProducer<Float>()
    let p9 = EventProducer<Point>()
    let log = Recorder<[String]>()
    let observation = combineLatest(p1, p2, p3, p4, p5, p6, p7, p8, p9).observe { log.add(components($0)) }
    p1.next(1)
    p2.next("two")
    p3.next(3.5)
    p4.next(false)
    p5.next("e")
    p6.next([6])
    p7.next(7)
    p8.next(8.25)
    #expect(log.items.isEmpty)
    p9.next(Point(x: 9, y: -9))
    p1.next(11)
    p2.next("twenty")
    p3.next(33.5)
    p4.next(true)
    p5.next("E")
    p6.next([6, 6])
    p7.next(77)
    p8.next(88.25)
    p9.next(Point(x: 99, y: -99))
    expectArity(
      log,
      initial: ["1", "two", "3.5", "false", "e", "[6]", "7", "8.25", "P(9,-9)"],
      updated: ["11", "twenty", "33.5", "true", "E", "[6, 6]", "77", "88.25", "P(99,-99)"]
    )
    observation.dispose()
    #expect(
      [
        p1.observerCount, p2.observerCount, p3.observerCount, p4.observerCount, p5.observerCount, p6.observerCount,
        p7.observerCount, p8.observerCount, p9.observerCount,
      ] == [0, 0, 0, 0, 0, 0, 0, 0, 0]
    )
  }

  @Test func arity10() {
    let p1 = EventProducer<Int>()
    let p2 = EventProducer<String>()
    let p3 = EventProducer<Double>()
    let p4 = EventProducer<Bool>()
    let p5 = EventProducer<Character>()
    let p6 = EventProducer<[Int]>()
    let p7 = EventProducer<UInt8>()
    let p8 = EventProducer<Float>()
    let p9 = EventProducer<Point>()
    let p10 = EventProducer<Int16>()
    let log = Recorder<[String]>()
    let observation = combineLatest(p1, p2, p3, p4, p5, p6, p7, p8, p9, p10).observe { log.add(components($0)) }
    p1.next(1)
    p2.next("two")
    p3.next(3.5)
    p4.next(false)
    p5.next("e")
    p6.next([6])
    p7.next(7)
    p8.next(8.25)
    p9.next(Point(x: 9, y: -9))
    #expect(log.items.isEmpty)
    p10.next(-10)
    p1.next(11)
    p2.next("twenty")
    p3.next(33.5)
    p4.next(true)
    p5.next("E")
    p6.next([6, 6])
    p7.next(77)
    p8.next(88.25)
    p9.next(Point(x: 99, y: -99))
    p10.next(-100)
    expectArity(
      log,
      initial: ["1", "two", "3.5", "false", "e", "[6]", "7", "8.25", "P(9,-9)", "-10"],
      updated: ["11", "twenty", "33.5", "true", "E", "[6, 6]", "77", "88.25", "P(99,-99)", "-100"]
    )
    observation.dispose()
    #expect(
      [
        p1.observerCount, p2.observerCount, p3.observerCount, p4.observerCount, p5.observerCount, p6.observerCount,
        p7.observerCount, p8.observerCount, p9.observerCount, p10.observerCount,
      ] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    )
  }

  @Test func tenSourcesOfOneTypeKeepTheirPositions() {
    let sources = (0..<10).map { _ in EventProducer<Int>() }
    let log = Recorder<[String]>()
    let observation = combineLatest(
      sources[0],
      sources[1],
      sources[2],
      sources[3],
      sources[4],
      sources[5],
      sources[6],
      sources[7],
      sources[8],
      sources[9]
    ).observe { log.add(components($0)) }
    for (index, source) in sources.enumerated() { source.next(index) }
    for (index, source) in sources.enumerated() { source.next(100 + index) }
    expectArity(log, initial: (0..<10).map { "\($0)" }, updated: (100..<110).map { "\($0)" })
    observation.dispose()
    #expect(sources.allSatisfy { $0.observerCount == 0 })
  }

  @Test func moreThanTenSourcesThroughTheVariadicEntryPoint() {
    let s = (0..<12).map { _ in EventProducer<Int>() }
    let text = EventProducer<String>()
    let combined = combineLatest(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11], text)
    let log = Recorder<[String]>()
    let observation = combined.observe { log.add(components($0)) }
    for (index, source) in s.enumerated() { source.next(index) }
    text.next("t")
    for (index, source) in s.enumerated() { source.next(100 + index) }
    text.next("T")
    expectArity(log, initial: (0..<12).map { "\($0)" } + ["t"], updated: (100..<112).map { "\($0)" } + ["T"])
    observation.dispose()
    #expect(s.allSatisfy { $0.observerCount == 0 } && text.observerCount == 0)
  }

  @Test func oneProducerIsRejected() async {
    await #expect(processExitsWith: .failure) {
      _ = combineLatest(EventProducer<Int>())
    }
  }

  @Test func aNilEventCountsAsSent() {
    let a = EventProducer<Int?>()
    let b = EventProducer<String>()
    let log = Recorder<String>()
    let observation = a.combineLatestWith(b).observe { log.add("\(String(describing: $0.0))-\($0.1)") }
    a.next(nil)
    b.next("x")
    a.next(1)
    a.next(nil)
    #expect(log.items == ["nil-x", "Optional(1)-x", "nil-x"])
    observation.dispose()
  }

  // MARK: replay and registration

  @Test func replaysTheTupleOfTheSourcesReplays() {
    let a = Observable(1)
    let b = EventProducer<String>(replayLength: 2)
    let c = Observable(2.5)
    b.next("old")
    b.next("x")
    let log = Recorder<String>()
    let observation = combineLatest(a, b, c).observe(
      { log.add("\($0)\($1)\($2)") },
      registered: { log.add("registered") }
    )
    #expect(log.items == ["1x2.5", "registered"])
    b.next("y")
    #expect(log.items == ["1x2.5", "registered", "1y2.5"])
    observation.dispose()
  }

  @Test func theLastSourcesReplayCompletesOneTuplePerEvent() {
    let a = Observable(1)
    let b = EventProducer<String>(replayLength: 2)
    b.next("x")
    b.next("y")
    let log = Recorder<String>()
    combineLatest(a, b).observe { log.add("\($0)\($1)") }.dispose()
    #expect(log.items == ["1x", "1y"])
    #expect(combineLatest(a, b).replayLength == 2)
    #expect(combineLatest(b, a).replayLength == 1)
    #expect(combineLatest(a, EventProducer<Int>()).replayLength == 0)
  }

  @Test func registeredWaitsForEverySource() {
    let a = Observable(1)
    let late = LateRegistration<String>()
    late.producer.next("x")
    let log = Recorder<String>()
    let observation = combineLatest(a, late).observe({ log.add("\($0)\($1)") }, registered: { log.add("registered") })
    #expect(log.items == ["1x"])
    late.producer.next("y")
    late.finish()
    #expect(log.items == ["1x", "1y", "registered"])
    observation.dispose()
  }

  @Test func registeredWithoutAnyTuple() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = combineLatest(a, b).observe({ log.add("\($0)\($1)") }, registered: { log.add("registered") })
    #expect(log.items == ["registered"])
    observation.dispose()
  }

  // MARK: reentrancy and disposal

  @Test func aSendFromInsideTheObserverIsDeliveredAfterTheCurrentTuple() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = combineLatest(a, b).observe { x, y in
      log.add("begin \(x)\(y)")
      // `b` is delivering (it queues its 2 itself); `a` is idle and sends into the serializer,
      // which queues it behind the current tuple. Neither recurses into the observer.
      if x == 1 && y == 1 {
        b.next(2)
        a.next(2)
      }
      log.add("end \(x)\(y)")
    }
    a.next(1)
    b.next(1)
    #expect(log.items == ["begin 11", "end 11", "begin 21", "end 21", "begin 22", "end 22"])
    observation.dispose()
  }

  @Test func manyEventsQueuedWhileTheObserverRunsKeepTheirOrder() {
    // While a tuple from `b` is being delivered, `a` is idle: its events go into the
    // observation's queue, more than its lock-free ring holds (the rest through the overflow).
    let a = EventProducer<Int>()
    let b = EventProducer<String>()
    let log = Recorder<String>()
    let observation = combineLatest(a, b).observe { x, y in
      log.add("\(x)\(y)")
      if y == "b" && x == 0 { for value in 1...30 { a.next(value) } }
      if y == "c" && x == 30 { for value in 31...45 { a.next(value) } }
    }
    a.next(0)
    b.next("b")
    b.next("c")
    let expected = ["0b"] + (1...30).map { "\($0)b" } + ["30c"] + (31...45).map { "\($0)c" }
    #expect(log.items == expected)
    observation.dispose()
  }

  @Test func disposingFromInsideTheObserverStopsAtOnce() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<Int>()
    var observation: (any DisposableType)?
    observation = combineLatest(a, b).observe { x, _ in
      log.add(x)
      if x == 2 {
        a.next(3)
        observation?.dispose()
      }
    }
    a.next(1)
    b.next(0)
    a.next(2)
    a.next(4)
    #expect(log.items == [1, 2])
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  @Test func disposeReleasesTheObserverAndTheValues() {
    weak var weakCaptured: Tracked?
    weak var weakValue: Tracked?
    let a = EventProducer<Tracked>()
    let b = EventProducer<Int>()
    let observation: any DisposableType
    do {
      let captured = Tracked("captured")
      let value = Tracked("value")
      weakCaptured = captured
      weakValue = value
      observation = combineLatest(a, b).observe { _ in _ = captured }
      a.next(value)
      b.next(1)
    }
    #expect(weakCaptured != nil && weakValue != nil)
    observation.dispose()
    #expect(weakCaptured == nil, "the observer is released")
    #expect(weakValue == nil, "the latest values are released")
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  @Test func deallocatedSourcesReleaseTheObservation() {
    weak var weakCaptured: Tracked?
    weak var weakSource: EventProducer<Int>?
    do {
      let a = EventProducer<Int>()
      let b = EventProducer<Int>()
      weakSource = a
      let captured = Tracked()
      weakCaptured = captured
      combineLatest(a, b).observe { _ in _ = captured }
      a.next(1)
      b.next(2)
    }
    #expect(weakSource == nil, "an observation does not keep its sources alive")
    #expect(weakCaptured == nil, "the sources released the observation")
  }

  @Test func observationsAreIndependent() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let combined = combineLatest(a, b)
    let first = Recorder<String>()
    let second = Recorder<String>()
    let one = combined.observe { first.add("\($0)\($1)") }
    a.next(1)
    b.next(1)
    let two = combined.observe { second.add("\($0)\($1)") }
    a.next(2)
    b.next(2)
    #expect(first.items == ["11", "21", "22"])
    #expect(second.items == ["22"])
    #expect(a.observerCount == 2)
    one.dispose()
    two.dispose()
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  // MARK: the state machine and the tuple layout, with no threads

  @Test func stateMachineWaitsForEverySource() {
    var machine = CombineLatestStateMachine(sourceCount: 3)
    #expect(machine.eventStored(isItsFirst: true) == .ignore)
    #expect(machine.eventStored(isItsFirst: false) == .ignore)
    #expect(machine.eventStored(isItsFirst: true) == .ignore)
    #expect(machine.eventStored(isItsFirst: true) == .deliverTuple)
    #expect(machine.state == .combining)
    #expect(machine.eventStored(isItsFirst: false) == .deliverTuple)
    #expect(machine.sourceRegistered() == .ignore)
    #expect(machine.sourceRegistered() == .ignore)
    #expect(machine.sourceRegistered() == .callRegistered)
  }

  @Test func stateMachineStopsOnARegistrationMoreThanItsSources() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = CombineLatestStateMachine(sourceCount: 1)
      _ = machine.sourceRegistered()
      _ = machine.sourceRegistered()
    }
    #expect(exitTestStandardError(result).contains("CombineLatestStateMachine.sourceRegistered: more registrations"))
  }

  @Test func tupleLayoutMatchesTheCompilers() {
    func offsets<each T>(_: repeat (each T).Type) -> (offsets: [Int], size: Int, alignment: Int) {
      var layout = TupleLayout()
      var offsets: [Int] = []
      for type in repeat (each T).self { offsets.append(layout.append(type)) }
      return (offsets, layout.size, layout.alignment)
    }
    typealias A = (Int8, Int64, Bool, String, UInt16, Double, Character, [Int], Float, Int8)
    let a = offsets(
      Int8.self,
      Int64.self,
      Bool.self,
      String.self,
      UInt16.self,
      Double.self,
      Character.self,
      [Int].self,
      Float.self,
      Int8.self
    )
    #expect(
      a.offsets == [
        0, MemoryLayout<A>.offset(of: \A.1)!, MemoryLayout<A>.offset(of: \A.2)!,
        MemoryLayout<A>.offset(of: \A.3)!, MemoryLayout<A>.offset(of: \A.4)!, MemoryLayout<A>.offset(of: \A.5)!,
        MemoryLayout<A>.offset(of: \A.6)!, MemoryLayout<A>.offset(of: \A.7)!, MemoryLayout<A>.offset(of: \A.8)!,
        MemoryLayout<A>.offset(of: \A.9)!,
      ]
    )
    #expect(a.size == MemoryLayout<A>.size && a.alignment == MemoryLayout<A>.alignment)
    // The offset of a zero-size element (B.0, B.2) is never used to read or write; and in release
    // builds `MemoryLayout.offset(of:)` returns garbage for it, so it is not compared.
    typealias B = (Void, Bool, Void, Int32, Point, Int?, Bool?)
    let b = offsets(Void.self, Bool.self, Void.self, Int32.self, Point.self, Int?.self, Bool?.self)
    #expect(
      [b.offsets[1]] + b.offsets[3...] == [
        MemoryLayout<B>.offset(of: \B.1)!,
        MemoryLayout<B>.offset(of: \B.3)!, MemoryLayout<B>.offset(of: \B.4)!, MemoryLayout<B>.offset(of: \B.5)!,
        MemoryLayout<B>.offset(of: \B.6)!,
      ]
    )
    #expect(b.size == MemoryLayout<B>.size && b.alignment == MemoryLayout<B>.alignment)
  }

  @Test func voidAndOptionalEventsKeepTheirPlaces() {
    let taps = EventProducer<Void>()
    let flag = EventProducer<Bool?>()
    let count = EventProducer<Int8>()
    let log = Recorder<String>()
    let observation = combineLatest(taps, flag, count).observe { _, flag, count in
      log.add("\(String(describing: flag))/\(count)")
    }
    taps.next(())
    flag.next(nil)
    count.next(-1)
    flag.next(true)
    taps.next(())
    #expect(log.items == ["nil/-1", "Optional(true)/-1", "Optional(true)/-1"])
    observation.dispose()
  }

  // MARK: the end

  @Test func stateMachineEndsWhenEverySourceHasEndedOrOneEndsSilent() {
    var machine = CombineLatestStateMachine(sourceCount: 2)
    #expect(machine.sourceEnded(hadSent: true) == .ignore)
    #expect(machine.sourceEnded(hadSent: true) == .end)
    var silent = CombineLatestStateMachine(sourceCount: 3)
    #expect(silent.sourceEnded(hadSent: false) == .end, "no tuple can come any more")
    #expect(TupleMarkers.position(ofEnded: TupleMarkers.ended(position: 4)) == 4)
    #expect(TupleMarkers.ended(position: 0) < TupleMarkers.registered)
  }

  @Test func endsWhenEverySourceHasEnded() {
    let a = EventProducer<Int>()
    let b = EventProducer<String>()
    let log = Recorder<String>()
    let observation = combineLatest(a, b).observe {
      log.add("\($0)\($1)")
    } finished: {
      log.add("end")
    }
    a.next(1)
    b.next("x")
    a.finish()
    b.next("y")
    #expect(log.items == ["1x", "1y"] && !observation.isDisposed, "one source ended after sending: not yet")
    b.finish()
    a.next(2)
    #expect(log.items == ["1x", "1y", "end"] && observation.isDisposed)
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  @Test func endsAtOnceWhenASourceEndsWithoutHavingSent() {
    let a = EventProducer<Int>()
    let b = EventProducer<String>()
    let c = EventProducer<Bool>()
    let log = Recorder<String>()
    let observation = combineLatest(a, b, c).observe {
      log.add("\($0)\($1)\($2)")
    } finished: {
      log.add("end")
    }
    a.next(1)
    c.next(true)
    b.finish()
    #expect(log.items == ["end"] && observation.isDisposed)
    #expect(a.observerCount == 0 && c.observerCount == 0)
  }

  @Test func aSourceThatHasEndedSilentEndsItAtRegistration() {
    let a = Observable(1)
    let b = EventProducer<Int>()
    b.finish()
    let log = Recorder<String>()
    let observation = a.combineLatestWith(b).observe {
      log.add("\($0)\($1)")
    } finished: {
      log.add("end")
    }
    #expect(log.items == ["end"] && observation.isDisposed && a.observerCount == 0)
  }

  @Test func theEndComesAfterTheTuplesOfTheEventsBeforeIt() {
    let a = EventProducer<Int>(replayLength: 1)
    let b = EventProducer<Int>(replayLength: 1)
    a.next(1)
    a.finish()
    b.next(2)
    b.finish()
    let log = Recorder<String>()
    combineLatest(a, b).observe(
      with: EventObserver(
        { log.add("\($0)\($1)") },
        finished: { log.add("end") },
        registered: { log.add("registered") }
      )
    )
    #expect(log.items == ["12", "registered", "end"])
  }

  @Test func disposeIsNotAnEnd() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<String>()
    let observation = combineLatest(a, b).observe {
      log.add("\($0)\($1)")
    } finished: {
      log.add("end")
    }
    observation.dispose()
    a.finish()
    b.finish()
    #expect(log.items.isEmpty)
  }
}
