// S18 async in: 1M elements of an AsyncStream into a producer with one observer. S18a: the elements
// buffered before the measurement; S18b: fed live by another thread while read. Bond:
// `send(contentsOf:)`; naive: a hand-written `for await` + `next`, then `finish()`.

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
