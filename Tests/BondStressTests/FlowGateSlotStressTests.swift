import Dispatch
import Testing

@testable import Bond

// A producer's flow gate made by racing readers (`FlowGateSlot.storeIfNil`): every reader gets
// the one gate stored, the others are let go, and the gate goes with its producer. Run under
// `swift test --scratch-path .build-tsan --sanitize=thread --filter FlowGateSlotStressTests`.

@Suite struct FlowGateSlotStressTests {
  @Test func racingReadersGetOneGateReleasedWithTheProducer() {
    withWatchdog("racingReadersGetOneGateReleasedWithTheProducer", seconds: 120) {
      for _ in 0..<200 {
        weak var gate: FlowGate?
        // The gate each racing reader got, by reader. A `LockedState` (pthread), not a `Mutex`:
        // ThreadSanitizer does not see `Mutex`'s futex on Linux and reports the dictionary.
        let seen = LockedState<[Int: ObjectIdentifier]>([:])
        do {
          let producer = EventProducer<Int>()
          DispatchQueue.concurrentPerform(iterations: 4) { index in
            // `writability` and `gate` both make the gate; `isWritable` reads it.
            if index == 0 { _ = producer.writability }
            _ = producer.isWritable
            let gate = ObjectIdentifier(producer.gate)
            seen.withLock { $0[index] = gate }
          }
          gate = producer.flowGate.load()
        }
        let gates = seen.withLock { $0 }
        #expect(gates.count == 4)
        #expect(Set(gates.values).count == 1)
        #expect(gate == nil)
      }
    }
  }
}
