@testable import Bond
import BondTesting
import Dispatch
import Foundation
import Testing

/// `values` and `values(bufferLimit:whenFull:)` (CONTRACT.md, "The 1.0 surface" 2): one event per
/// `await`, bounded and lossless by default, on the machinery of `batchedValues`.
@Suite struct ValuesTests {
  @Test func valuesIsBoundedAt1024AndPutsItsProducerUnderPressureUntilHalfIsTaken() async {
    let producer = EventProducer<Int>()
    var iterator = producer.values.makeAsyncIterator()
    for value in 0..<1_023 { producer.next(value) }
    #expect(producer.isWritable, "1,023 events wait: room for one more")
    producer.next(1_023)
    #expect(!producer.isWritable, "1,024 wait: the producer is under pressure")
    for value in 0..<511 { #expect(await iterator.next() == value) }
    #expect(!producer.isWritable, "513 still wait")
    #expect(await iterator.next() == 511)
    #expect(producer.isWritable, "512 wait: the pressure is let go")
    producer.finish()
    var rest: [Int] = []
    while let value = await iterator.next() { rest.append(value) }
    #expect(rest == Array(512..<1_024), "nothing dropped, then the end")
  }

  @Test func aSynchronousFloodOverfillsButLosesNothing() async {
    let producer = EventProducer<Int>()
    let values = producer.values(bufferLimit: 8)
    for value in 0..<100 { producer.next(value) }  // `next` never waits
    producer.finish()
    var got: [Int] = []
    for await value in values { got.append(value) }
    #expect(got == Array(0..<100))
  }

  @Test func anAsyncSenderWaitsForTheConsumer() async throws {
    let producer = EventProducer<Int>()
    let values = producer.values(bufferLimit: 4)
    let consumer = Task {
      var got: [Int] = []
      for await value in values { got.append(value) }
      return got
    }
    for value in 0..<1_000 { try await producer.send(value) }
    producer.finish()
    #expect(await consumer.value == Array(0..<1_000))
  }

  @Test(arguments: [(DeliveryOverflowPolicy.dropOldest, [7, 8, 9]), (.dropNewest, [0, 1, 2])])
  func droppingIsAskedForByName(policy: DeliveryOverflowPolicy, kept: [Int]) async {
    let producer = EventProducer<Int>()
    let values = producer.values(bufferLimit: 3, whenFull: policy)
    for value in 0..<10 { producer.next(value) }
    #expect(producer.isWritable, "a dropping buffer never puts its producer under pressure")
    producer.finish()
    var got: [Int] = []
    for await value in values { got.append(value) }
    #expect(got == kept)
  }

  @Test func releasingTheSequenceLetsThePressureGo() {
    let producer = EventProducer<Int>()
    do {
      let values = producer.values(bufferLimit: 2)
      for value in 0..<3 { producer.next(value) }
      #expect(!producer.isWritable)
      _ = values
    }
    #expect(producer.isWritable && producer.observerCount == 0)
  }

  @Test func theUnboundedFormIsAskedForByName() async {
    let producer = EventProducer<Int>()
    let stream: AsyncStream<Int> = producer.values(bufferingPolicy: .unbounded)
    for value in 0..<5_000 { producer.next(value) }
    #expect(producer.isWritable, "no limit, no pressure")
    producer.finish()
    var count = 0
    for await _ in stream { count += 1 }
    #expect(count == 5_000)
  }

  @Test func bufferLimitBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().values(bufferLimit: 0)
    }
    #expect(
      exitTestStandardError(result).contains("values(bufferLimit:whenFull:): bufferLimit must be at least 1, got 0")
    )
  }
}
