import Testing

@testable import Bond

/// A producer's flow gate (`FlowGateSlot`): made once when first needed, the same gate for every
/// later reader, released with the producer.
@Suite struct FlowGateSlotTests {
  @Test func aProducerHasNoGateUntilOneIsNeededThenAlwaysTheSameOne() {
    let producer = EventProducer<Int>()
    #expect(producer.flowGate.load() == nil)
    #expect(producer.isWritable)
    let gate = producer.gate
    #expect(producer.flowGate.load() === gate)
    #expect(producer.gate === gate)
  }

  @Test func aGateStoredSecondIsLetGoAndTheFirstIsReturned() {
    let slot = FlowGateSlot()
    let first = FlowGate()
    weak var second: FlowGate?
    do {
      let late = FlowGate()
      second = late
      #expect(slot.storeIfNil(first) === first)
      #expect(slot.storeIfNil(late) === first)
    }
    #expect(second == nil)
    #expect(slot.load() === first)
  }

  @Test func theGateIsReleasedWithItsProducer() {
    weak var gate: FlowGate?
    do {
      let producer = EventProducer<Int>()
      gate = producer.gate
      #expect(gate != nil)
    }
    #expect(gate == nil)
  }
}
