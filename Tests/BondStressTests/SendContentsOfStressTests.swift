import Foundation
import Synchronization
import Testing
@testable import Bond

// Issue 12: send(contentsOf:) pulls the next element only after the current one has been
// delivered, also when another thread holds the producer's delivery rights.
// Run under `swift test --scratch-path .build-tsan --sanitize=thread --filter SendContentsOfStressTests`.

/// 0..<count, checking at each pull that the observer of the previous element has returned.
private struct ProbedSequence: AsyncSequence, Sendable {
  typealias Element = Int
  let count: Int
  let probe: Probe

  struct AsyncIterator: AsyncIteratorProtocol {
    let sequence: ProbedSequence
    var nextValue = 0
    mutating func next() async -> Int? {
      guard nextValue < sequence.count else { return nil }
      // acquiring: pairs with the observer's releasing store.
      if sequence.probe.returned.load(ordering: .acquiring) != nextValue {
        sequence.probe.earlyPulls.add(1, ordering: .relaxed)
      }
      defer { nextValue += 1 }
      return nextValue
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self) }
}

private final class Probe: Sendable {
  /// How many elements' observers have returned (element k's observer stores k + 1 on return).
  let returned = Atomic(0)
  let earlyPulls = Atomic(0)
  let outOfOrder = Atomic(0)
  let deliveredByOtherThread = Atomic(0)
  let noiseThreadID = Atomic<UInt>(0)
  /// The other thread's events that have been delivered.
  let noiseDelivered = Atomic(0)
  let stop = Atomic(false)
}

@Suite struct SendContentsOfStressTests {
  @Test func theNextElementWaitsForTheDeliveryWhileAnotherThreadDrains() async throws {
    await withWatchdog("sendContentsOfBackpressure", seconds: 120) {
      let count = 2_000
      let probe = Probe()
      let producer = EventProducer<Int>()
      let ended = Locked(false)
      producer.observe { value in
        if value < 0 {
          usleep(200)  // the other thread's event: it holds the rights a while
          probe.noiseDelivered.add(1, ordering: .releasing)
          return
        }
        if UInt(bitPattern: Int(bitPattern: pthread_self())) == probe.noiseThreadID.load(ordering: .relaxed) {
          probe.deliveredByOtherThread.add(1, ordering: .relaxed)
        }
        if probe.returned.load(ordering: .relaxed) != value { probe.outOfOrder.add(1, ordering: .relaxed) }
        usleep(20)
        // releasing: the pull of the next element must see it.
        probe.returned.store(value + 1, ordering: .releasing)
      } finished: {
        ended.withLock { $0 = true }
      }
      // The other thread sends its next event once the previous one is delivered. Unpaced, it would
      // queue events far faster than the 200 µs observer takes them, and whichever thread holds the
      // delivery rights (this test's task included) would drain that growing queue forever.
      let noise = Thread {
        probe.noiseThreadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
        var sent = 0
        while !probe.stop.load(ordering: .relaxed) {
          producer.next(-1)
          sent += 1
          // acquiring: pairs with the observer's releasing add.
          while probe.noiseDelivered.load(ordering: .acquiring) < sent && !probe.stop.load(ordering: .relaxed) {
            usleep(10)
          }
        }
      }
      noise.start()
      while probe.noiseThreadID.load(ordering: .relaxed) == 0 { usleep(100) }

      let sequence = ProbedSequence(count: count, probe: probe)
      do {
        try await producer.send(contentsOf: sequence)
      } catch {
        Issue.record("send(contentsOf:) threw \(error)")
      }
      probe.stop.store(true, ordering: .relaxed)
      producer.finish()
      await producer.flush()

      #expect(probe.returned.load(ordering: .acquiring) == count)
      #expect(
        probe.earlyPulls.load(ordering: .relaxed) == 0,
        "an element was pulled before the previous one was delivered"
      )
      #expect(probe.outOfOrder.load(ordering: .relaxed) == 0)
      #expect(ended.value)
      // The scenario exercised the slow path: the other thread delivered some of the elements.
      #expect(probe.deliveredByOtherThread.load(ordering: .relaxed) > 0)
    }
  }
}
