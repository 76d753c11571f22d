import Foundation
import Synchronization
import Testing
@testable import Bond

/// The inbox's direct path (`EventProducer+Direct.swift`): an upstream's event finding the inbox
/// idle calls the sink itself; one finding it busy (another upstream delivering, or a reentrant
/// send from inside a delivery) is queued. These tests make both paths race, with reentrant sends
/// and disposals among them, and check exact outcomes: every event once, each source in order, no
/// two deliveries at once, nothing after `dispose()` returns, the sink released. Run under
/// `swift test --sanitize=thread --filter InboxDirectPathStressTests`.
@Suite struct InboxDirectPathStressTests {
  static let perThread = 20_000 * stressScale

  /// merge of 3 sources: 2 sent to from their own threads, the third only from inside deliveries
  /// (a reentrant send, always queued); every event arrives once, each source's in order.
  @Test func mergeDirectAndQueuedEventsArriveOnceInOrder() {
    withWatchdog("mergeDirectAndQueuedEventsArriveOnceInOrder", seconds: 120) {
      let sources = (0..<3).map { _ in EventProducer<Int>() }
      let overlaps = OverlapDetector()
      // Touched only by deliveries, which never overlap.
      var last = [-1, -1, -1]
      var outOfOrder = 0
      let progress = DeliveryProgress()
      let echo = sources[2]
      let observation = merge(sources).observe { value in
        overlaps.enter()
        let source = value % 4
        if value / 4 <= last[source] { outOfOrder += 1 }
        last[source] = value / 4
        // Every 16th event of the first source is echoed, reentrantly, into the third.
        if source == 0, (value / 4) % 16 == 0 { echo.next(value / 4 / 16 * 4 + 2) }
        overlaps.leave()
        progress.advance()
      }
      runTogether(threads: 2) { thread in
        for sequence in 0..<Self.perThread { sources[thread].next(sequence * 4 + thread) }
      }
      let echoes = (Self.perThread + 15) / 16
      #expect(progress.wait(for: 2 * Self.perThread + echoes), "every event delivered")
      observation.dispose()
      #expect(progress.count == 2 * Self.perThread + echoes, "none twice")
      #expect(overlaps.count == 0, "one delivery at a time")
      #expect(outOfOrder == 0, "each source's events in its order")
      #expect(last == [Self.perThread - 1, Self.perThread - 1, echoes - 1])
    }
  }

  /// combineLatest and zip with their two sources on two threads, disposed by a third thread in the
  /// middle of the flood, many rounds: no delivery starts after the one in flight when `dispose()`
  /// returned, and the sink (with the observer's closure) is released.
  @Test func disposeRacingDirectDeliveriesStopsThemAndReleasesTheSink() {
    withWatchdog("disposeRacingDirectDeliveriesStopsThemAndReleasesTheSink", seconds: 180) {
      for round in 0..<(40 * stressScale) {
        let a = EventProducer<Int>()
        let b = EventProducer<Int>()
        let overlaps = OverlapDetector()
        let deliveries = Counter()
        let record = DisposalRecord()
        weak var released: ReleaseToken?
        // The observer's closure holds the token; nothing else does once this closure returns.
        let observation: any DisposableType = {
          let token = ReleaseToken()
          released = token
          let handler: ((Int, Int)) -> Void = { _ in
            withExtendedLifetime(token) {}
            overlaps.enter()
            deliveries.increment()
            overlaps.leave()
          }
          return round.isMultiple(of: 2) ? combineLatest(a, b).observe(handler) : zip(a, b).observe(handler)
        }()
        runTogether(threads: 3) { thread in
          if thread == 2 {
            while deliveries.count < 200 { sched_yield() }
            observation.dispose()
            // At most the delivery in flight finishes after this: record the count now.
            record.countAtDispose.store(deliveries.count, ordering: .relaxed)
            record.disposed.store(true, ordering: .releasing)
            return
          }
          let source = thread == 0 ? a : b
          // Sends until the disposal, then 2,000 more (each would start a delivery if it could);
          // gives up after 1M (the disposer is stuck: fails below rather than hangs).
          var extra = 2_000
          for value in 0..<1_000_000 where extra > 0 {
            source.next(value)
            if record.isDisposed { extra -= 1 }
          }
        }
        #expect(record.isDisposed, "the disposer ran")
        #expect(overlaps.count == 0, "one delivery at a time")
        #expect(
          deliveries.count <= record.deliveriesAtDispose + 1,
          "no delivery starts after dispose() returned (one in flight may finish)"
        )
        #expect(waitUntil(seconds: 10) { released == nil }, "the sink and the observer's closure are released")
        #expect(a.observerCount == 0 && b.observerCount == 0)
      }
    }
  }

  /// zip with its sources on two threads, and half of the second source's events sent from inside
  /// the deliveries (reentrant: queued behind the delivery, never recursive): every pair once, the
  /// first source's events in order, the second's two senders each in order, none lost.
  @Test func zipPairsDirectQueuedAndReentrantEventsExactly() {
    withWatchdog("zipPairsDirectQueuedAndReentrantEventsExactly", seconds: 120) {
      let half = Self.perThread / 2
      let a = EventProducer<Int>()
      let b = EventProducer<Int>()
      let pairs = Recorder<(Int, Int)>()
      let progress = DeliveryProgress()
      var delivered = 0  // touched only by deliveries
      let observation = zip(a, b).observe { pair in
        pairs.add(pair)
        if delivered < half { b.next(half + delivered) }
        delivered += 1
        progress.advance()
      }
      runTogether(threads: 2) { thread in
        if thread == 0 {
          for value in 0..<(2 * half) { a.next(value) }
        } else {
          for value in 0..<half { b.next(value) }
        }
      }
      #expect(progress.wait(for: 2 * half))
      observation.dispose()
      let items = pairs.items
      #expect(items.count == 2 * half)
      #expect(items.enumerated().allSatisfy { $0.element.0 == $0.offset }, "the first source in order")
      let second = items.map(\.1)
      #expect(Set(second) == Set(0..<(2 * half)), "each event of the second source once")
      let direct = second.filter { $0 < half }
      let reentrant = second.filter { $0 >= half }
      #expect(direct == Array(0..<half) && reentrant == Array(half..<(2 * half)), "each sender's order")
    }
  }
}

/// An object whose release shows that whatever held it (an observer's closure) was released.
private final class ReleaseToken: Sendable {}

/// What the disposing thread records for the senders and the checks.
private final class DisposalRecord: Sendable {
  let disposed = Atomic<Bool>(false)
  let countAtDispose = Atomic<Int>(-1)
  /// acquiring: pairs with the disposer's releasing store, after its count.
  var isDisposed: Bool { disposed.load(ordering: .acquiring) }
  var deliveriesAtDispose: Int { countAtDispose.load(ordering: .relaxed) }
}
