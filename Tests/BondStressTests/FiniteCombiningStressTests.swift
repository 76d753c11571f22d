import Foundation
import Synchronization
import Testing
@testable import Bond

/// The end through merge, switchToLatest and combineLatest (CONTRACT.md, "Finite streams" 5 and
/// 6): sources finish while others send from other threads, and observers register and dispose
/// meanwhile. Every observer gets, of each source, its events in order (a prefix of what it sent,
/// all of it when the operator ends), then exactly one end, nothing after. Run under
/// `swift test --sanitize=thread --filter FiniteCombiningStressTests`.
@Suite struct FiniteCombiningStressTests {
  enum Entry: Sendable, Equatable {
    case event(source: Int, sequence: Int)
    case end
  }

  /// What one observation received, checked: one end at most, the last entry; each source's events
  /// in order with no duplicate, and contiguous from where the observation started.
  struct Log {
    let entries: [Entry]
    var ends: Int { entries.filter { $0 == .end }.count }
    var endIsLast: Bool { ends == 0 || entries.last == .end }
    /// Each source's sequence numbers, in delivery order.
    func sequences(sources: Int) -> [[Int]] {
      var result = Array(repeating: [Int](), count: sources)
      for case .event(let source, let sequence) in entries { result[source].append(sequence) }
      return result
    }
    func inOrderAndContiguous(sources: Int) -> Bool {
      sequences(sources: sources).allSatisfy { values in zip(values, values.dropFirst()).allSatisfy { $1 == $0 + 1 } }
    }
  }

  /// Observes `producer` into `log`: a pair (x, y) as `.event(source: x, sequence: y)`, then `.end`.
  static func observe<P: EventProducerType>(_ producer: P, into log: Recorder<Entry>) -> any DisposableType
  where P.Event == (Int, Int) {
    producer.observe {
      log.add(.event(source: $0.0, sequence: $0.1))
    } finished: {
      log.add(.end)
    }
  }

  @Test func mergeOfSourcesFinishingWhileOthersSend() {
    let rounds = 20 * stressScale
    let perThread = 2_000
    let sources = 4
    for _ in 0..<rounds {
      let producers = (0..<sources).map { _ in EventProducer<(Int, Int)>() }
      let whole = (0..<3).map { _ in Recorder<Entry>() }
      let observations = whole.map { Self.observe(merge(producers), into: $0) }
      let churned = Recorder<[Entry]>()
      runTogether(threads: sources + 1) { thread in
        if thread < sources {
          for sequence in 0..<perThread { producers[thread].next((thread, sequence)) }
          producers[thread].finish()
        } else {
          // Observers registering and disposing while the sources send and finish.
          for _ in 0..<20 {
            let log = Recorder<Entry>()
            let observation = Self.observe(merge(producers), into: log)
            sched_yield()
            observation.dispose()
            churned.add(log.items)
          }
        }
      }
      // The last events may still be on their way (a worker delivers what a call handed off).
      waitUntil {
        whole.allSatisfy { Log(entries: $0.items).ends > 0 } && producers.allSatisfy { $0.observerCount == 0 }
      }
      for (log, observation) in zip(whole.map { Log(entries: $0.items) }, observations) {
        #expect(log.ends == 1 && log.endIsLast, "exactly one end, nothing after it")
        #expect(log.sequences(sources: sources).allSatisfy { $0 == Array(0..<perThread) }, "every event, in order")
        #expect(observation.isDisposed)
      }
      for entries in churned.items {
        let log = Log(entries: entries)
        #expect(log.ends <= 1 && log.endIsLast && log.inOrderAndContiguous(sources: sources))
      }
      #expect(producers.allSatisfy { $0.observerCount == 0 })
    }
  }

  @Test func outerMergeEndsAfterTheOuterAndEveryInnerWhateverTheOrder() {
    let rounds = 50 * stressScale
    let perThread = 500
    let inners = 3
    for _ in 0..<rounds {
      let outer = EventProducer<EventProducer<(Int, Int)>>()
      let producers = (0..<inners).map { _ in EventProducer<(Int, Int)>() }
      let log = Recorder<Entry>()
      let observation = Self.observe(outer.merge(), into: log)
      for producer in producers { outer.next(producer) }
      runTogether(threads: inners + 1) { thread in
        if thread < inners {
          for sequence in 0..<perThread { producers[thread].next((thread, sequence)) }
          producers[thread].finish()
        } else {
          outer.finish()
        }
      }
      // The end may still be on its way (a worker delivers what a call handed off).
      waitUntil { log.items.contains(.end) && observation.isDisposed }
      let received = Log(entries: log.items)
      #expect(received.ends == 1 && received.endIsLast)
      #expect(received.sequences(sources: inners).allSatisfy { $0 == Array(0..<perThread) })
      #expect(observation.isDisposed && outer.observerCount == 0)
    }
  }

  @Test func switchToLatestEndsOnceAfterTheOuterAndTheLatestInner() {
    let rounds = 50 * stressScale
    let perThread = 500
    let inners = 3
    for _ in 0..<rounds {
      let outer = EventProducer<EventProducer<(Int, Int)>>()
      let producers = (0..<inners).map { _ in EventProducer<(Int, Int)>() }
      let log = Recorder<Entry>()
      let observation = Self.observe(outer.switchToLatest(), into: log)
      runTogether(threads: inners + 1) { thread in
        if thread < inners {
          for sequence in 0..<perThread { producers[thread].next((thread, sequence)) }
          producers[thread].finish()
        } else {
          // Switches while the inners send and finish, then ends the outer.
          for producer in producers { outer.next(producer) }
          outer.finish()
        }
      }
      // The end may still be on its way (a worker delivers what a call handed off).
      waitUntil { log.items.contains(.end) && observation.isDisposed }
      let received = Log(entries: log.items)
      #expect(received.ends == 1 && received.endIsLast, "the latest inner and the outer have ended")
      #expect(received.inOrderAndContiguous(sources: inners))
      #expect(observation.isDisposed && outer.observerCount == 0)
      #expect(producers.allSatisfy { $0.observerCount == 0 })
    }
  }

  @Test func combineLatestEndsOnceWhenEverySourceHasEnded() {
    let rounds = 50 * stressScale
    let perThread = 1_000
    for _ in 0..<rounds {
      let a = EventProducer<Int>()
      let b = EventProducer<Int>()
      let log = Recorder<Entry>()
      let observation = Self.observe(combineLatest(a, b), into: log)
      runTogether(threads: 2) { thread in
        let source = thread == 0 ? a : b
        for value in 0..<perThread { source.next(value) }
        source.finish()
      }
      // The end may still be on its way (a worker delivers what a call handed off).
      waitUntil { log.items.contains(.end) && observation.isDisposed }
      let entries = log.items
      #expect(entries.filter { $0 == .end }.count == 1 && entries.last == .end)
      #expect(
        entries.dropLast().last == .event(source: perThread - 1, sequence: perThread - 1),
        "the last tuple, then the end"
      )
      #expect(observation.isDisposed && a.observerCount == 0 && b.observerCount == 0)
    }
  }

  @Test func combineLatestEndsOnceWhenASourceEndsSilentWhileTheOtherSends() {
    let rounds = 200 * stressScale
    for _ in 0..<rounds {
      let a = EventProducer<Int>()
      let b = EventProducer<Int>()
      let log = Recorder<Entry>()
      let observation = Self.observe(combineLatest(a, b), into: log)
      runTogether(threads: 2) { thread in
        if thread == 0 {
          for value in 0..<200 { a.next(value) }
        } else {
          b.finish()
        }
      }
      // The end may still be on its way (a worker delivers what a call handed off).
      waitUntil { log.items.contains(.end) && observation.isDisposed }
      #expect(log.items == [.end], "no tuple can come: the end, once, nothing after")
      #expect(observation.isDisposed && a.observerCount == 0)
    }
  }
}
