import Foundation
import Testing

@testable import Bond

/// `append(_:)` with the receiver sending and ending on one thread while `other` sends on another
/// (CONTRACT.md, "More of the vocabulary", rule 6): every observer gets all the receiver's events
/// in order, then an increasing run of `other`'s, then exactly one end; it is never called
/// concurrently; both `observerCount`s are back to 0. Run under
/// `swift test --sanitize=thread --filter AppendStressTests`.
@Suite struct AppendStressTests {
  enum Entry: Sendable, Equatable {
    case event(Int)
    case end
  }

  @Test func otherSendsWhileTheReceiverEnds() {
    withWatchdog("appendOtherSendsWhileTheReceiverEnds", seconds: 120) {
      let rounds = 50 * stressScale
      let sent = 1_000
      for round in 0..<rounds {
        let first = EventProducer<Int>()
        let then = EventProducer<Int>()
        let logs = (0..<3).map { _ in Recorder<Entry>() }
        let detectors = logs.map { _ in OverlapDetector() }
        let observations = zip(logs, detectors).map { log, overlaps in
          first.append(then).observe { value in
            overlaps.enter()
            log.add(.event(value))
            overlaps.leave()
          } finished: {
            overlaps.enter()
            log.add(.end)
            overlaps.leave()
          }
        }
        runTogether(threads: 2) { thread in
          if thread == 0 {
            for value in 0..<sent { first.next(value) }
            first.finish()
          } else {
            for _ in 0..<(round % 7) * 10 { sched_yield() }
            for value in sent..<(2 * sent) { then.next(value) }
            then.finish()
          }
        }
        // The private serializer may have handed what it holds to a worker: wait for every end.
        #expect(waitUntil { logs.allSatisfy { $0.items.last == .end } }, "every observation ends")
        for log in logs {
          let entries = log.items
          #expect(entries.filter { $0 == .end }.count == 1 && entries.last == .end, "exactly one end, last")
          let values = entries.compactMap { entry -> Int? in
            if case .event(let value) = entry { return value }
            return nil
          }
          #expect(Array(values.prefix(sent)) == Array(0..<sent), "every event of the receiver, in order")
          let rest = values.dropFirst(sent)
          #expect(zip(rest, rest.dropFirst()).allSatisfy { $0 + 1 == $1 }, "then a run of other's, in order")
          #expect(rest.allSatisfy { $0 >= sent }, "nothing of other before the receiver's end")
        }
        #expect(detectors.allSatisfy { $0.count == 0 }, "an observer is never called concurrently")
        #expect(observations.allSatisfy { $0.isDisposed })
        #expect(first.observerCount == 0 && then.observerCount == 0)
      }
    }
  }
}
