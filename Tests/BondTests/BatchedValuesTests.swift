@testable import Bond
import BondTesting
import Dispatch
import Foundation
import Testing

/// `batchedValues(maxCount:bufferLimit:whenFull:)`: the rows of its guide's tables.
@Suite struct BatchedValuesTests {
  @Test func theEventsThatArrivedSinceTheLastNextComeAsOneArray() async {
    let producer = EventProducer<String>()
    let batches = producer.batchedValues()
    var iterator = batches.makeAsyncIterator()
    producer.next("a")
    producer.next("b")
    #expect(await iterator.next() == ["a", "b"])
    producer.next("c")
    producer.finish()
    #expect(await iterator.next() == ["c"])
    #expect(await iterator.next() == nil)
  }

  @Test func anArrayHoldsAtMostMaxCountEvents() async {
    let producer = EventProducer<Int>()
    var iterator = producer.batchedValues(maxCount: 3).makeAsyncIterator()
    for value in 0..<8 { producer.next(value) }
    producer.finish()
    #expect(await iterator.next() == [0, 1, 2])
    #expect(await iterator.next() == [3, 4, 5])
    #expect(await iterator.next() == [6, 7])
    #expect(await iterator.next() == nil)
  }

  @Test func theReplayComesFirst() async {
    let producer = EventProducer<Int>(replayLength: 2)
    for value in 0..<5 { producer.next(value) }
    var iterator = producer.batchedValues().makeAsyncIterator()
    producer.next(5)
    #expect(await iterator.next() == [3, 4, 5])
  }

  @Test func aWaitingConsumerIsResumedByTheNextEvent() async {
    let producer = EventProducer<Int>()
    let batches = producer.batchedValues()
    let consumer = Task {
      var all: [Int] = []
      for await batch in batches { all += batch }
      return all
    }
    for value in 0..<100 {
      producer.next(value)
      // Spaces the inputs so that the consumer is often waiting when one comes; the verdict (every
      // value, in order, after the end) does not depend on it.
      if value % 10 == 0 { try? await Task.sleep(for: .milliseconds(1)) }
    }
    producer.finish()
    #expect(await consumer.value == Array(0..<100))
  }

  /// Flow control: a full buffer puts the producer under pressure until the consumer has taken it
  /// down to half; nothing is dropped.
  @Test func aFullBufferPutsTheProducerUnderPressureUntilHalfIsTaken() async {
    let producer = EventProducer<Int>()
    var iterator = producer.batchedValues(maxCount: 2, bufferLimit: 4).makeAsyncIterator()
    for value in 0..<3 { producer.next(value) }
    #expect(producer.isWritable)
    producer.next(3)
    #expect(!producer.isWritable)
    producer.next(4)  // `next` never waits: the buffer holds it beyond its limit
    #expect(await iterator.next() == [0, 1])
    #expect(!producer.isWritable, "3 events wait: above half of 4")
    #expect(await iterator.next() == [2, 3])
    #expect(producer.isWritable, "1 event waits")
    #expect(await iterator.next() == [4])
  }

  @Test func dropOldestKeepsTheFreshest() async {
    let producer = EventProducer<Int>()
    var iterator = producer.batchedValues(bufferLimit: 3, whenFull: .dropOldest).makeAsyncIterator()
    for value in 0..<6 { producer.next(value) }
    #expect(producer.isWritable)
    #expect(await iterator.next() == [3, 4, 5])
  }

  @Test func dropNewestKeepsTheEarliest() async {
    let producer = EventProducer<Int>()
    var iterator = producer.batchedValues(bufferLimit: 3, whenFull: .dropNewest).makeAsyncIterator()
    for value in 0..<6 { producer.next(value) }
    #expect(await iterator.next() == [0, 1, 2])
  }

  @Test func cancellingTheConsumerEndsItAndDisposesTheObservation() async {
    let producer = EventProducer<Int>()
    let batches = producer.batchedValues()
    #expect(producer.observerCount == 1)
    let consumer = Task {
      var count = 0
      for await batch in batches { count += batch.count }
      return count
    }
    producer.next(1)
    #expect(await waitUntilAsync { producer.observerCount == 1 })
    consumer.cancel()
    _ = await consumer.value
    #expect(await waitUntilAsync { producer.observerCount == 0 })
  }

  @Test func releasingTheSequenceDisposesTheObservationAndLetsThePressureGo() async {
    let producer = EventProducer<Int>()
    do {
      var iterator = producer.batchedValues(maxCount: 1, bufferLimit: 2).makeAsyncIterator()
      for value in 0..<3 { producer.next(value) }
      #expect(!producer.isWritable)
      #expect(await iterator.next() == [0])
    }
    #expect(producer.observerCount == 0)
    #expect(producer.isWritable)
  }

  @Test func maxCountBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().batchedValues(maxCount: 0)
    }
    #expect(
      exitTestStandardError(result).contains(
        "batchedValues(maxCount:bufferLimit:whenFull:): maxCount must be at least 1"
      )
    )
  }

  @Test func bufferLimitBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().batchedValues(bufferLimit: 0)
    }
    #expect(exitTestStandardError(result).contains("bufferLimit must be at least 1, got 0"))
  }
}
