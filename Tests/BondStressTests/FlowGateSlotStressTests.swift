import Dispatch
import Synchronization
import Testing

@testable import Bond

// A producer's flow gate made by racing readers (`FlowGateSlot.storeIfNil`): every reader gets
// the one gate stored, the others are let go, and the gate goes with its producer. Run under
// `swift test --scratch-path .build-tsan --sanitize=thread --filter FlowGateSlotStressTests`.

/// The gates the racing readers got: compared by identity.
private final class Seen: @unchecked Sendable {
  // @unchecked: written by thread `index` into its own slot; read after the threads joined.
  var gates: [ObjectIdentifier?]
  init(count: Int) { gates = Array(repeating: nil, count: count) }
}

@Suite struct FlowGateSlotStressTests {
  @Test func racingReadersGetOneGateReleasedWithTheProducer() {
    withWatchdog("racingReadersGetOneGateReleasedWithTheProducer", seconds: 120) {
      for _ in 0..<200 {
        weak var gate: FlowGate?
        let seen = Seen(count: 4)
        do {
          let producer = EventProducer<Int>()
          DispatchQueue.concurrentPerform(iterations: 4) { index in
            // `writability` and `gate` both make the gate; `isWritable` reads it.
            if index == 0 { _ = producer.writability }
            _ = producer.isWritable
            seen.gates[index] = ObjectIdentifier(producer.gate)
          }
          gate = producer.flowGate.load()
        }
        #expect(Set(seen.gates.compactMap { $0 }).count == 1)
        #expect(seen.gates.allSatisfy { $0 != nil })
        #expect(gate == nil)
      }
    }
  }
}
