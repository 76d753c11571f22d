import Testing

@testable import Bond

/// A type that implements neither observe requirement (issue 19: the protocol trap).
struct ImplementsNeither: EventProducerType {
  typealias Event = Int
  var replayLength: Int { 0 }
}

/// A Bond v4-style producer: it implements `observe(_:)` only.
struct V4Style: EventProducerType {
  typealias Event = Int
  let producer = EventProducer<Int>(replayLength: 1)
  var replayLength: Int { 1 }
  func observe(_ observer: @escaping (Int) -> Void) -> any DisposableType { producer.observe(observer) }
}

@Suite struct ConformanceAndRightsTests {
  @Test func aTypeThatImplementsNeitherObserveStopsWithAMessageNamingIt() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = ImplementsNeither().observe { _ in }
    }
    #expect(
      exitTestStandardError(result).contains(
        "EventProducerType: ImplementsNeither implements neither observe(with:) nor observe(_:)"
      )
    )
  }

  @Test func aV4StyleTypeThatImplementsObserveOnlyStillConforms() {
    let source = V4Style()
    source.producer.next(1)
    let log = Recorder<String>()
    let observation = source.observe(with: EventObserver({ log.add("\($0)") }, registered: { log.add("registered") }))
    source.producer.next(2)
    #expect(log.items == ["1", "registered", "2"])
    observation.dispose()
    // Chained through operators, which observe with `observe(with:)`.
    let doubled = Recorder<Int>()
    source.map { $0 * 2 }.observe { doubled.add($0) }.dispose()
    #expect(doubled.items == [4])
  }

  /// The debug check behind `@exclusivity(unchecked)`: touching the drainer-owned state without
  /// holding the delivery rights stops (debug builds; compiled out of release).
  @Test func touchingTheDrainerStateWithoutTheRightsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EventProducer<Int>().deliverDraining(1)
    }
    #expect(exitTestStandardError(result).contains("does not hold the delivery rights"))
  }
}
