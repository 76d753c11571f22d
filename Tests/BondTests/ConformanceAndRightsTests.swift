import Dispatch
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

  /// The debug check behind the sinks' `@exclusivity(unchecked)` state: a second entry while a
  /// thread is inside stops (debug builds; compiled out of release).
  @Test func enteringASinkWhileAThreadIsInsideStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let check = SerialAccessCheck()
      check.enter()
      check.enter()
    }
    #expect(exitTestStandardError(result).contains("entered by two threads at once, or reentered"))
  }

  /// The same check in a real sink: `take(while:)`'s sink reentered from inside its own decision.
  @Test func reenteringATakeWhileSinkStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let reentered = LockedState<EarlyEndSink<Int>?>(nil)
      let sink = EarlyEndSink<Int>(
        EventObserver({ _ in }),
        count: nil,
        decide: { value in
          if value == 1, let sink = reentered.withLock({ $0 }) { sink.receive(2) }
          return .deliver
        }
      )
      reentered.withLock { $0 = sink }
      sink.receive(1)
    }
    #expect(exitTestStandardError(result).contains("entered by two threads at once, or reentered"))
  }

  /// A sink used as designed never trips the check: sequential entries from several threads.
  @Test func sequentialEntriesFromSeveralThreadsPass() {
    let check = SerialAccessCheck()
    let lock = LockedState(())
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<100 {
        lock.withLock { _ in
          check.enter()
          check.leave()
        }
      }
    }
  }
}
