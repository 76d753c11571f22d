// S18 async in and out: 1M elements of an AsyncStream into a producer with one observer. S18a: the
// elements buffered before the measurement; S18b: fed live by another thread while read. Bond:
// `send(contentsOf:)`; naive: a hand-written `for await` + `next`, then `finish()`. S18c: the same
// 1M elements as 977 arrays of 1,024 through the chunked `send(contentsOf:)` (naive: `for await`
// over the arrays + `next` per element). S18d, out: 1M `next`s on this thread, consumed by a task
// through `batchedValues(maxCount: 1024)` (naive: `values`, an `AsyncStream` step per element),
// timed until the consumer has them all.

import Benchmark
import Bond
import Foundation

func registerAsyncIn() {
  // S18a: send(contentsOf:) from an AsyncStream whose 1M elements are already buffered.
  registerAsync("S18a", .bond) { benchmark in
    let stream = bufferedStream(count: million)
    let sink = Sink()
    let producer = EventProducer<Int>()
    let observation = producer.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    try? await producer.send(contentsOf: stream)
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }

  // S18b: send(contentsOf:) from an AsyncStream another thread feeds while it is read.
  registerAsync("S18b", .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let observation = producer.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    let stream = liveStream(count: million)
    try? await producer.send(contentsOf: stream)
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }

  // S18c: the chunked send(contentsOf:), 1,024 elements per array, already buffered.
  registerAsync("S18c", .bond) { benchmark in
    let chunks = bufferedChunks(count: million, size: 1_024)
    let sink = Sink()
    let producer = EventProducer<Int>()
    let observation = producer.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    try? await producer.send(contentsOf: chunks)
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }

  registerAsync("S18c", .naive) { benchmark in
    let chunks = bufferedChunks(count: million, size: 1_024)
    let sink = Sink()
    let producer = EventProducer<Int>()
    let observation = producer.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for await chunk in chunks {
      for value in chunk { producer.next(value) }
    }
    producer.finish()
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }

  // S18d: 1M events out through batchedValues (an array per await) vs values (a step per event).
  for engine in [Engine.bond, .naive] {
    registerAsync("S18d", engine) { benchmark in
      let producer = EventProducer<Int>()
      let count = million
      let consumer: Task<Int, Never>
      if engine == .bond {
        let batches = producer.batchedValues(maxCount: 1_024, bufferLimit: count)
        consumer = Task {
          var sum = 0
          for await batch in batches {
            for value in batch { sum &+= value }
          }
          return sum
        }
      } else {
        let values = producer.values
        consumer = Task {
          var sum = 0
          for await value in values { sum &+= value }
          return sum
        }
      }
      benchmark.startMeasurement()
      for i in 0..<count { producer.next(i) }
      producer.finish()
      let sum = await consumer.value
      benchmark.stopMeasurement()
      blackHole(sum)
    }
  }

  // S18a, S18b: for await + next.
  for (scenario, live) in [("S18a", false), ("S18b", true)] {
    registerAsync(scenario, .naive) { benchmark in
      let sink = Sink()
      let producer = EventProducer<Int>()
      let observation = producer.observe { sink.sum &+= $0 }
      let buffered = live ? nil : bufferedStream(count: million)
      benchmark.startMeasurement()
      for await value in buffered ?? liveStream(count: million) { producer.next(value) }
      producer.finish()
      benchmark.stopMeasurement()
      observation.dispose()
      blackHole(sink.sum)
    }
  }
}

/// An `AsyncStream` holding `count` elements already buffered, then its end.
func bufferedStream(count: Int) -> AsyncStream<Int> {
  let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
  for i in 0..<count { continuation.yield(i) }
  continuation.finish()
  return stream
}

/// An `AsyncStream` that a new thread feeds with `count` elements, then ends, while it is read.
func liveStream(count: Int) -> AsyncStream<Int> {
  let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
  let feeder = Thread {
    for i in 0..<count { continuation.yield(i) }
    continuation.finish()
  }
  feeder.start()
  return stream
}

/// An `AsyncStream` holding `count` elements in arrays of `size`, already buffered, then its end.
func bufferedChunks(count: Int, size: Int) -> AsyncStream<[Int]> {
  let (stream, continuation) = AsyncStream.makeStream(of: [Int].self, bufferingPolicy: .unbounded)
  for start in stride(from: 0, to: count, by: size) { continuation.yield(Array(start..<min(start + size, count))) }
  continuation.finish()
  return stream
}
