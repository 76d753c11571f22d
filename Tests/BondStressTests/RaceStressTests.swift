import Foundation
import Testing

@testable import Bond

/// `race(_:)` with several threads sending to different producers at once (CONTRACT.md, "More of
/// the vocabulary", rule 5): exactly one winner, every event delivered is the winner's, in its
/// order, nothing from a loser after the win; the observer is never called concurrently; every
/// loser's `observerCount` drops to 0. Run under `swift test --sanitize=thread --filter RaceStressTests`.
@Suite struct RaceStressTests {
  @Test func severalThreadsSendToDifferentProducersAtOnce() {
    withWatchdog("raceSeveralThreadsSendToDifferentProducersAtOnce", seconds: 120) {
      let rounds = 50 * stressScale
      let threads = 4
      let sent = 500
      for _ in 0..<rounds {
        let producers = (0..<threads).map { _ in EventProducer<Int>() }
        let logs = (0..<3).map { _ in Recorder<Int>() }
        let ends = (0..<3).map { _ in Counter() }
        let detectors = logs.map { _ in OverlapDetector() }
        let observations = (0..<3).map { index in
          race(producers).observe { value in
            detectors[index].enter()
            logs[index].add(value)
            detectors[index].leave()
          } finished: {
            ends[index].increment()
          }
        }
        runTogether(threads: threads) { thread in
          // Producer `thread` sends thread * sent, thread * sent + 1, ...
          for value in 0..<sent { producers[thread].next(thread * sent + value) }
          producers[thread].finish()
        }
        // The private serializer may have handed what it holds to a worker: wait for every end.
        #expect(waitUntil { ends.allSatisfy { $0.count >= 1 } }, "every observation ends")
        for (log, end) in zip(logs, ends) {
          let values = log.items
          let winner = values.first.map { $0 / sent }
          #expect(winner != nil, "one producer wins")
          #expect(values.allSatisfy { $0 / sent == winner }, "exactly one winner: nothing from a loser")
          #expect(values.count <= sent && zip(values, values.dropFirst()).allSatisfy { $0 + 1 == $1 })
          if let winner {
            #expect(values.last == winner * sent + sent - 1, "every event of the winner after its first")
          }
          #expect(end.count == 1, "it ends with the winner, once")
        }
        #expect(detectors.allSatisfy { $0.count == 0 }, "an observer is never called concurrently")
        #expect(observations.allSatisfy { $0.isDisposed })
        #expect(producers.allSatisfy { $0.observerCount == 0 })
      }
    }
  }
}
