import Foundation
import Testing

@testable import Bond

/// `groupBy(maxGroups:_:)` with several threads sending at once, and disposed while they send
/// (CONTRACT.md, "More of the vocabulary", rule 4): each group's observer, observing inside the
/// group's delivery, gets every event of its key and exactly one end; with `maxGroups` every event
/// reaches exactly one group; after a dispose the outer observer gets no end, every group's
/// observer one. Run under `swift test --sanitize=thread --filter GroupByStressTests`.
@Suite struct GroupByStressTests {
  @Test func severalThreadsSendAtOnce() async {
    await withWatchdog("groupBySeveralThreadsSendAtOnce", seconds: 120) {
      let rounds = 20 * stressScale
      let threads = 4
      let perThread = 500
      let keys = 10
      for round in 0..<rounds {
        let source = EventProducer<Int>()
        let received = Counter()
        let groupEnds = Counter()
        let groups = Counter()
        let outerEnds = Counter()
        let misplaced = Counter()
        let maxGroups = round.isMultiple(of: 2) ? Int.max : 3
        source.groupBy(maxGroups: maxGroups) { $0 % keys }.observe { group in
          groups.increment()
          group.events.observe { value in
            if value % keys != group.key { misplaced.increment() }
            received.increment()
          } finished: {
            groupEnds.increment()
          }
        } finished: {
          outerEnds.increment()
        }
        runTogether(threads: threads) { thread in
          for value in 0..<perThread { source.next(thread * perThread + value) }
        }
        await source.flush()  // the senders' work is delivered (a worker may hold it)
        source.finish()
        await source.flush()
        #expect(received.count == threads * perThread, "every event reaches its group")
        #expect(misplaced.count == 0)
        #expect(waitUntil { groupEnds.count == groups.count }, "every group ends, once")
        #expect(groupEnds.count == groups.count)
        #expect(maxGroups != .max || groups.count == keys)
        #expect(outerEnds.count == 1)
        #expect(source.observerCount == 0)
      }
    }
  }

  @Test func disposedWhileThreadsSend() async {
    await withWatchdog("groupByDisposedWhileThreadsSend", seconds: 120) {
      let rounds = 20 * stressScale
      let threads = 3
      for round in 0..<rounds {
        let source = EventProducer<Int>()
        let groupEnds = Counter()
        let groups = Counter()
        let outerEnds = Counter()
        let observation = source.groupBy(maxGroups: 4) { $0 % 7 }.observe { group in
          groups.increment()
          group.events.observe { _ in
          } finished: {
            groupEnds.increment()
          }
        } finished: {
          outerEnds.increment()
        }
        runTogether(threads: threads) { thread in
          if thread == 0 {
            for _ in 0..<(round % 7) * 20 { sched_yield() }
            observation.dispose()
          } else {
            for value in 0..<1_000 { source.next(value) }
          }
        }
        await source.flush()  // the senders' work is delivered (a worker may hold it)
        // A group's end may still be on its way: queued behind a delivery into that group, which
        // a worker may hold (the group's own hand-off), after the source is idle.
        #expect(waitUntil { groupEnds.count == groups.count }, "every group ends, once")
        #expect(groupEnds.count == groups.count)
        #expect(outerEnds.count == 0, "disposing is not an end")
        #expect(source.observerCount == 0)
      }
    }
  }
}
