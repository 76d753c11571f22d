import Dispatch
import Foundation
import Testing
@testable import Bond

/// The short form of `perf/soak` (which also measures memory with jemalloc): two threads send
/// through a mixed operator graph while observers come and go; every count must be exact and
/// nothing may stay registered. Runs under ThreadSanitizer in CI.
@Suite struct SoakStressTests {
  @Test func mixedGraphUnderTwoSendersAndChurnLosesNothingAndLeavesNothing() {
    let perThread = 25_000 * stressScale
    let source = EventProducer<Int>()
    let inner = EventProducer<Int>()
    let queue = DispatchQueue(label: "soak.stress")
    let plain = Counter()
    let chained = Counter()
    let shared = Counter()
    let combined = Counter()
    let merged = Counter()
    let delivered = Counter()
    let cycles = Counter()
    do {
      let other = Observable(0)
      let bag = DisposeBag()
      source.observe { _ in plain.increment() }.disposeIn(bag)
      source.map { $0 &* 3 }.filter { $0 & 1 == 0 }.skip(1).distinct().observe { _ in chained.increment() }.disposeIn(
        bag
      )
      let sharedChain = source.map { $0 + 1 }.share()
      sharedChain.observe { _ in shared.increment() }.disposeIn(bag)
      combineLatest(source, other).observe { _ in combined.increment() }.disposeIn(bag)
      merge([source.map { $0 }, source.map { -$0 }]).observe { _ in merged.increment() }.disposeIn(bag)
      source.deliverOn(queue).observe { _ in delivered.increment() }.disposeIn(bag)
      let inners = EventProducer<EventProducer<Int>>()
      inners.switchToLatest().observe { _ in }.disposeIn(bag)
      inners.next(inner)
      runTogether(threads: 2) { thread in
        for i in 0..<perThread {
          source.next(thread * perThread + i)
          if i % 100 == 0 {
            let observation = source.map { $0 }.observe { _ in }
            let second = inner.observe { _ in }
            inner.next(i)
            observation.dispose()
            second.dispose()
            cycles.increment()
          }
        }
      }
      let sent = 2 * perThread
      let deadline = Date().addingTimeInterval(60)
      while delivered.count < sent && Date() < deadline { usleep(1_000) }
      #expect(plain.count == sent)
      #expect(chained.count == (sent + 1) / 2 - 1)
      #expect(shared.count == sent)
      #expect(combined.count == sent)
      #expect(merged.count == 2 * sent)
      #expect(delivered.count == sent)
      #expect(cycles.count == 2 * ((perThread + 99) / 100))
      bag.dispose()
    }
    #expect(source.observerCount == 0)
    #expect(inner.observerCount == 0)
  }
}
