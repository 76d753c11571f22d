import Foundation
import Testing

@testable import Bond

/// The aggregates (`count`, `last`, `min`, `max`, `contains`, `allSatisfy`; CONTRACT.md, "More of
/// the vocabulary", rule 2) under 4 senders, one of which ends the stream while the others still
/// send: each observer gets exactly one result, computed from the events a plain observer saw,
/// then one end, nothing after; `contains` and `allSatisfy` answer while the others send and stop
/// observing. Run under `swift test --sanitize=thread --filter AggregatesStressTests`.
@Suite struct AggregatesStressTests {
  /// Records a stream's entries and checks that its observer is never called concurrently.
  final class Log: @unchecked Sendable {
    let entries = Recorder<String>()
    let overlaps = OverlapDetector()

    func observe<P: EventProducerType>(_ producer: P) -> any DisposableType {
      producer.observe { event in
        self.overlaps.enter()
        self.entries.add("\(event)")
        self.overlaps.leave()
      } finished: {
        self.overlaps.enter()
        self.entries.add("end")
        self.overlaps.leave()
      }
    }
  }

  /// The entries of an aggregate that delivers `value` (if any), then the end.
  static func result(_ value: Int?) -> [String] {
    guard let value else { return ["end"] }
    return ["\(value)", "end"]
  }

  @Test func theEndRacingFourSendersGivesOneResultFromTheEventsDelivered() async {
    await withWatchdog("aggregatesTheEndRacingFourSenders", seconds: 120) {
      let rounds = 20 * stressScale
      let perThread = 2_000
      for round in 0..<rounds {
        let producer = EventProducer<Int>()
        let seen = Recorder<Int>()
        let plain = producer.observe { seen.add($0) }
        let count = Log()
        let last = Log()
        let low = Log()
        let high = Log()
        let observations = [
          count.observe(producer.count()), last.observe(producer.last()),
          low.observe(producer.min()), high.observe(producer.max()),
        ]
        runTogether(threads: 4) { thread in
          for sequence in 0..<perThread {
            producer.next(thread * perThread + sequence)
            if thread == 0 && sequence == perThread / 2 + round % 50 { producer.finish() }
          }
        }
        await producer.flush()  // a worker may still be delivering
        let events = seen.items
        let expected: [(Log, [String])] = [
          (count, Self.result(events.count)), (last, Self.result(events.last)),
          (low, Self.result(events.min())), (high, Self.result(events.max())),
        ]
        for (log, entries) in expected {
          #expect(log.entries.items == entries)
          #expect(log.overlaps.count == 0, "an observer is never called concurrently")
        }
        #expect(observations.allSatisfy { $0.isDisposed })
        plain.dispose()
        #expect(producer.observerCount == 0)
      }
    }
  }

  @Test func containsAndAllSatisfyAnswerWhileFourSendersSend() async {
    await withWatchdog("aggregatesAnswerWhileFourSendersSend", seconds: 120) {
      let rounds = 20 * stressScale
      let perThread = 2_000
      for round in 0..<rounds {
        let producer = EventProducer<Int>()
        let target = 3 * perThread + (round * 37) % perThread  // sent by thread 3
        let found = Log()
        let allBelow = Log()
        let observations = [
          found.observe(producer.contains(target)),
          allBelow.observe(producer.allSatisfy { $0 != target }),
        ]
        runTogether(threads: 4) { thread in
          for sequence in 0..<perThread { producer.next(thread * perThread + sequence) }
        }
        await producer.flush()  // a worker may still be delivering
        #expect(found.entries.items == ["true", "end"])
        #expect(allBelow.entries.items == ["false", "end"])
        #expect(found.overlaps.count == 0 && allBelow.overlaps.count == 0)
        #expect(observations.allSatisfy { $0.isDisposed })
        #expect(producer.observerCount == 0, "the answer stops observing")
      }
    }
  }
}
