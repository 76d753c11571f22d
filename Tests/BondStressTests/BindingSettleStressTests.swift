import Foundation
import Testing
@testable import Bond

// Guarantee 9 of CONTRACT.md: a connected group of `bidirectionalBindTo` bindings over Equatable
// values, written from several threads at once, stops delivering soon after the writes stop, with
// every side holding the same value, one of the values written; every `value =` returns.
// Run under `swift test --sanitize=thread --filter BindingSettleStressTests`.

@Suite(.serialized) struct BindingSettleStressTests {
  /// Builds the group, then for each round: the writers write distinct values (writer t writes
  /// `round * 1_000_000 + t * 1_000 + i` into side `writerSides[t]`) from threads released
  /// together; once they have all returned and deliveries have stopped, every side must hold the
  /// same value, written in this round, and each side's last event must be its value.
  private func checkSettles(
    _ name: String,
    sides count: Int,
    edges: [(Int, Int)],
    writerSides: [Int],
    rounds: Int,
    perRound: Int
  ) {
    withWatchdog(name, seconds: 60) {
      let sides = (0..<count).map { Observable(-1 - $0) }
      let deliveries = Counter()
      let lastEvents = (0..<count).map { _ in Locked<Int?>(nil) }
      let watchers = (0..<count).map { index in
        sides[index].observe { value in
          deliveries.increment()
          lastEvents[index].withLock { $0 = value }
        }
      }
      let bindings = edges.map { sides[$0.0].bidirectionalBindTo(sides[$0.1]) }
      waitUntilQuiet { deliveries.count }
      let initial = sides.map(\.value)
      #expect(Set(initial).count == 1, "\(name): the group settles when bound: \(initial)")

      for round in 0..<rounds {
        runTogether(threads: writerSides.count) { writer in
          let side = sides[writerSides[writer]]
          for step in 0..<perRound { side.value = round * 1_000_000 + writer * 1_000 + step }
        }
        // Every `value =` has returned (else the watchdog fires); now deliveries must stop.
        waitUntilQuiet { deliveries.count }
        let values = sides.map(\.value)
        let settled = values[0]
        let writtenThisRound =
          settled / 1_000_000 == round
          && (0..<writerSides.count).contains(settled % 1_000_000 / 1_000)
          && (0..<perRound).contains(settled % 1_000)
        let events = lastEvents.map(\.value)
        guard Set(values).count == 1, writtenThisRound, events == values.map(Optional.some) else {
          Issue.record(
            "\(name), round \(round): sides hold \(values), last events \(events); written this round: \(writtenThisRound)"
          )
          break
        }
      }
      bindings.forEach { $0.dispose() }
      watchers.forEach { $0.dispose() }
      #expect(sides.allSatisfy { $0.observerCount == 0 }, "\(name): disposing the bindings unbinds every side")
    }
  }

  @Test func threeCycleWrittenFromFourThreadsSettles() {
    checkSettles(
      "threeCycleWrittenFromFourThreadsSettles",
      sides: 3,
      edges: [(0, 1), (1, 2), (2, 0)],
      writerSides: [0, 1, 2, 0],
      rounds: 25 * stressScale,
      perRound: 100
    )
  }

  @Test func fiveChainWrittenFromFourThreadsSettles() {
    checkSettles(
      "fiveChainWrittenFromFourThreadsSettles",
      sides: 5,
      edges: [(0, 1), (1, 2), (2, 3), (3, 4)],
      writerSides: [0, 1, 3, 4],
      rounds: 25 * stressScale,
      perRound: 100
    )
  }

  @Test func pairWrittenFromBothSidesSettles() {
    checkSettles(
      "pairWrittenFromBothSidesSettles",
      sides: 2,
      edges: [(0, 1)],
      writerSides: [0, 1, 0, 1],
      rounds: 25 * stressScale,
      perRound: 100
    )
  }
}
