// S14: a consumer on a serial DispatchQueue whose every call costs ~200 ns (what a syscall costs),
// 1M events (OpenCombine 100k), timed until the consumer has counted every event.
// S14a: one call per array: Bond `batches(on:maxCount: 1000)`, OpenCombine `receive(on:)` +
// `collect(1000)`. S14b: one call per event: Bond `deliverOn`, OpenCombine `receive(on:)`.

import BenchWork
import Benchmark
import Bond
import Dispatch
import OpenCombine
import OpenCombineDispatch

/// S14: the batch size limit (`batches(on:maxCount:)`, OpenCombine `collect(_:)`).
let batchMaxCount = 1_000

/// S14's fixed per-call cost of the consumer: about 200 ns (what a syscall costs).
let consumerCallCost = Swift.max(1, Int(200 * mixRoundsPerNanosecond))

/// S14's consumer call: the fixed cost, then the events.
@inline(__always)
func consumerCall(_ count: Int) -> Int {
  Int(truncatingIfNeeded: mix(UInt64(truncatingIfNeeded: count), rounds: consumerCallCost))
}

func registerBatches() {
  let events = peerEventsPerIteration

  // S14a batches: the consumer pays ~200 ns per call, once per array.
  register("S14a", .bond) { benchmark in
    measureQueuedConsumer(benchmark, label: "bench.s14a.bond") { producer, queue, sink, done in
      producer.batches(on: queue, maxCount: batchMaxCount).observe { batch in
        sink.sum &+= consumerCall(batch.count)
        for value in batch { sink.sum &+= value }
        done.add(batch.count)
      }
    }
  }

  // S14a: the consumer pays ~200 ns per array of `batchMaxCount`.
  register("S14a", .openCombine, events: events) { benchmark in
    measureQueuedConsumer(benchmark, events: events, label: "bench.s14a.opencombine") { subject, queue, sink, done in
      subject.receive(on: queue.ocombine).collect(batchMaxCount).sink { batch in
        sink.sum &+= consumerCall(batch.count)
        for value in batch { sink.sum &+= value }
        done.add(batch.count)
      }
    }
  }

  // S14b deliverOn: the same consumer, called once per event.
  register("S14b", .bond) { benchmark in
    measureQueuedConsumer(benchmark, label: "bench.s14b.bond") { producer, queue, sink, done in
      producer.deliverOn(queue).observe { value in
        sink.sum &+= consumerCall(1) &+ value
        done.add()
      }
    }
  }

  // S14b: the consumer pays ~200 ns per event.
  register("S14b", .openCombine, events: events) { benchmark in
    measureQueuedConsumer(benchmark, events: events, label: "bench.s14b.opencombine") { subject, queue, sink, done in
      subject.receive(on: queue.ocombine).sink { value in
        sink.sum &+= consumerCall(1) &+ value
        done.add()
      }
    }
  }
}

/// S14's iteration: `observe` connects a consumer on `queue` to `producer`; 1M sends, timed until
/// the consumer has counted every event.
func measureQueuedConsumer(
  _ benchmark: Benchmark,
  label: String,
  _ observe: (EventProducer<Int>, DispatchQueue, Sink, CompletionCounter) -> any DisposableType
) {
  let done = CompletionCounter(expected: million)
  let sink = Sink()
  let producer = EventProducer<Int>()
  let observation = observe(producer, DispatchQueue(label: label), sink, done)
  benchmark.startMeasurement()
  for i in benchmark.scaledIterations { producer.next(i) }
  done.wait()
  benchmark.stopMeasurement()
  observation.dispose()
  blackHole(sink.sum)
}

/// S14's iteration: `subscribe` connects a consumer on `queue` to `subject`; `events` sends, timed
/// until the consumer has counted every event.
private func measureQueuedConsumer(
  _ benchmark: Benchmark,
  events: Int,
  label: String,
  _ subscribe: (PassthroughSubject<Int, Never>, DispatchQueue, Sink, CompletionCounter) -> AnyCancellable
) {
  let done = CompletionCounter(expected: events)
  let sink = Sink()
  let subject = PassthroughSubject<Int, Never>()
  let cancellable = subscribe(subject, DispatchQueue(label: label), sink, done)
  benchmark.startMeasurement()
  for i in 0..<events { subject.send(i) }
  done.wait()
  benchmark.stopMeasurement()
  cancellable.cancel()
  blackHole(sink.sum)
}
