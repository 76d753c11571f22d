import Foundation
import Testing
@testable import Bond

/// Bindings under concurrent senders. Run under `swift test --sanitize=thread --filter BindingStressTests`.
@Suite struct BindingStressTests {
  struct Opaque: Sendable { let value: Int }

  @Test func keyPathBindingWritesAreSerialized() async {
    await withWatchdog("keyPathBindingWritesAreSerialized", seconds: 120) {
      // A plain non-Sendable class: the binding writes only from deliveries, which never overlap.
      final class Model {
        var total = 0
        var latest = 0
      }
      let model = Model()
      let threads = 4
      let perThread = 10_000 * stressScale
      let source = EventProducer<Int>()
      let binding = source.reduce(0) { sum, _ in sum + 1 }.bindTo(model, \.total)
      runTogether(threads: threads) { _ in
        for value in 0..<perThread { source.next(value) }
      }
      await source.flush()
      #expect(model.total == threads * perThread)
      binding.dispose()
      #expect(source.observerCount == 0)
    }
  }

  @Test func twoWayBindingWithConcurrentWritersOnOneSideHasNoEcho() async {
    await withWatchdog("twoWayBindingWithConcurrentWritersOnOneSideHasNoEcho", seconds: 120) {
      let threads = 4
      let perThread = 5_000 * stressScale
      let a = Observable(Opaque(value: -1))
      let b = Observable(Opaque(value: -2))
      var fromA = 0
      var fromB = 0
      let countA = a.observeNew { _ in fromA += 1 }
      let countB = b.observeNew { _ in fromB += 1 }
      let binding = a ->>< b
      runTogether(threads: threads) { thread in
        for sequence in 0..<perThread { a.value = Opaque(value: thread * perThread + sequence) }
      }
      // a's deliveries set b, b's may set a: the chain twice.
      for _ in 0..<2 {
        await a.flush()
        await b.flush()
      }
      #expect(fromA == threads * perThread, "no echo came back into a")
      #expect(fromB == 1 + threads * perThread, "b got a's value first, then every change once")
      #expect(a.value.value == b.value.value)
      binding.dispose()
      countA.dispose()
      countB.dispose()
      #expect(a.observerCount == 0 && b.observerCount == 0)
    }
  }

  @Test func equatableTwoWayBindingWithConcurrentWritersOnOneSideHasNoEcho() async {
    await withWatchdog("equatableTwoWayBindingWithConcurrentWritersOnOneSideHasNoEcho", seconds: 120) {
      let threads = 4
      let perThread = 5_000 * stressScale
      let a = Observable(-1)
      let b = Observable(-2)
      var fromA = 0
      var fromB = 0
      let countA = a.observeNew { _ in fromA += 1 }
      let countB = b.observeNew { _ in fromB += 1 }
      let binding = a ->>< b
      runTogether(threads: threads) { thread in
        for sequence in 0..<perThread { a.value = thread * perThread + sequence }
      }
      // a's deliveries set b, b's may set a: the chain twice.
      for _ in 0..<2 {
        await a.flush()
        await b.flush()
      }
      #expect(fromA == threads * perThread)
      #expect(fromB == 1 + threads * perThread)
      #expect(a.value == b.value)
      binding.dispose()
      countA.dispose()
      countB.dispose()
    }
  }
}
