import Foundation
import Testing
import Bond

@Suite struct DebugTests {
  /// Run in a child process (an exit test): other suites run in parallel in this one and move the
  /// process-wide count.
  @Test func liveObservationCountReturnsToItsStartAfterDisposeAndDeinit() async {
    await #expect(processExitsWith: .success) {
      liveObservationCountScenario()
    }
  }
}

/// Exits with a failure when the count does not follow the observations' lives.
func liveObservationCountScenario() {
  func check(_ condition: Bool, _ what: String) {
    if !condition {
      print("FAIL: \(what)")
      exit(1)
    }
  }
  do {
    let before = BondDebug.liveObservationCount
    let producer = EventProducer<Int>()
    let first = producer.map { $0 + 1 }.filter { $0 > 0 }.observe { _ in }
    let second = producer.observe { _ in }
    check(BondDebug.liveObservationCount == before + 2, "two observations")
    first.dispose()
    first.dispose()  // counted once
    second.dispose()
    check(BondDebug.liveObservationCount == before, "back after dispose")

    var shortLived: EventProducer<Int>? = EventProducer<Int>()
    let orphan = shortLived!.observe { _ in }
    check(BondDebug.liveObservationCount == before + 1, "one more")
    shortLived = nil  // the producer ends its observations
    _ = shortLived
    check(BondDebug.liveObservationCount == before, "back after the producer went")
    orphan.dispose()  // harmless, not counted twice
    check(BondDebug.liveObservationCount == before, "not counted twice")
  }
}

@Suite struct LogOperatorTests {

  @Test func logWritesEventsRegistrationAndDisposalWithTheTag() {
    let lines = Recorder<String>()
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(1)
    let seen = Recorder<Int>()
    let observation = producer.log("prices", to: { lines.add($0) }).observe { seen.add($0) }
    producer.next(2)
    observation.dispose()
    observation.dispose()
    producer.next(3)
    #expect(seen.items == [1, 2])
    let kinds = lines.items.map { $0.components(separatedBy: " (thread").first! }
    #expect(kinds == ["prices observe", "prices event: 1", "prices registered", "prices event: 2", "prices disposed"])
    #expect(lines.items.allSatisfy { $0.hasPrefix("prices ") && $0.contains("(thread ") })
    #expect(producer.observerCount == 0)
  }
}
