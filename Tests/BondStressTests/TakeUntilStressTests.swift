import Foundation
import Testing

@testable import Bond

/// `take(until:)` with the trigger fired on another thread while the source sends, and `take(_:)`
/// reaching its count while several threads send (CONTRACT.md, "The everyday operators"): every
/// observer gets a prefix of the source's order, then exactly one end, nothing after; the observer
/// is never called concurrently; every upstream's `observerCount` is back to 0. Run under
/// `swift test --sanitize=thread --filter TakeUntilStressTests`.
@Suite struct TakeUntilStressTests {
  enum Entry: Sendable, Equatable {
    case event(Int)
    case end
  }

  static func check(_ entries: [Entry], of sent: Int) {
    let ends = entries.filter { $0 == .end }.count
    #expect(ends == 1 && entries.last == .end, "exactly one end, nothing after it")
    let values = entries.compactMap { entry -> Int? in
      if case .event(let value) = entry { return value }
      return nil
    }
    #expect(values == Array(0..<values.count) && values.count <= sent, "a prefix of the source's order")
  }

  @Test func triggerOnAnotherThreadWhileTheSourceSends() {
    withWatchdog("takeUntilTriggerOnAnotherThreadWhileTheSourceSends", seconds: 120) {
      let rounds = 50 * stressScale
      let sent = 2_000
      for round in 0..<rounds {
        let source = EventProducer<Int>()
        let trigger = EventProducer<Int>()
        let logs = (0..<3).map { _ in Recorder<Entry>() }
        let detectors = logs.map { _ in OverlapDetector() }
        let observations = zip(logs, detectors).map { log, overlaps in
          source.take(until: trigger).observe { value in
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
            for value in 0..<sent { source.next(value) }
          } else {
            for _ in 0..<(round % 7) * 10 { sched_yield() }
            trigger.next(0)
          }
        }
        // A call may hand the serializer's remaining work to a worker (issue 17): wait for the ends.
        #expect(waitUntil { logs.allSatisfy { $0.items.contains(.end) } })
        for log in logs { Self.check(log.items, of: sent) }
        #expect(detectors.allSatisfy { $0.count == 0 }, "an observer is never called concurrently")
        #expect(observations.allSatisfy { $0.isDisposed })
        #expect(source.observerCount == 0 && trigger.observerCount == 0)
      }
    }
  }

  @Test func takeReachesItsCountWhileSeveralThreadsSend() {
    withWatchdog("takeReachesItsCountWhileSeveralThreadsSend", seconds: 120) {
      let rounds = 50 * stressScale
      let threads = 3
      let perThread = 500
      for round in 0..<rounds {
        let source = EventProducer<Int>()
        let count = 1 + round % 50
        let log = Recorder<Entry>()
        let overlaps = OverlapDetector()
        let observation = source.take(count).observe { value in
          overlaps.enter()
          log.add(.event(value))
          overlaps.leave()
        } finished: {
          overlaps.enter()
          log.add(.end)
          overlaps.leave()
        }
        runTogether(threads: threads) { _ in
          for value in 0..<perThread { source.next(value) }
        }
        let entries = log.items
        #expect(entries.count == count + 1 && entries.last == .end)
        #expect(entries.filter { $0 == .end }.count == 1)
        #expect(overlaps.count == 0)
        #expect(observation.isDisposed && source.observerCount == 0)
      }
    }
  }
}
