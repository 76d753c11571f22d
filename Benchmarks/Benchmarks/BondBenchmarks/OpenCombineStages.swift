// Peer: OpenCombine 0.14 on the pipeline-stage and vocabulary scenarios where it has the operator:
// S14a `receive(on:)` + `collect(_:)` (its count form), S14b `receive(on:)`, S15 `zip`, S17
// `collect(_:)`, S20b `flatMap(maxPublishers: .max(2))` over a `Just` per event. No cell for S13 (no partition), S16 (no withLatestFrom) and S18 (no AsyncSequence
// source). 100,000 events per iteration, like the other OpenCombine cells.

import Benchmark
import Dispatch
import OpenCombine
import OpenCombineDispatch

func registerOpenCombineStages() {
  let events = peerEventsPerIteration

  // S20b: flatMap(maxPublishers: .max(2)) over a Just per event (synchronous: each inner
  // publisher completes at once, so the next event finds a free slot).
  register(.s20b, .openCombine, events: concurrentMapEvents) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.flatMap(maxPublishers: .max(2)) { Just($0) }.sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<concurrentMapEvents { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  // S14a: the consumer pays ~200 ns per array of `batchMaxCount`.
  register(.s14a, .openCombine, events: events) { benchmark in
    measureQueuedConsumer(benchmark, events: events, label: "bench.s14a.opencombine") { subject, queue, sink, done in
      subject.receive(on: queue.ocombine).collect(batchMaxCount).sink { batch in
        sink.sum &+= consumerCall(batch.count)
        for value in batch { sink.sum &+= value }
        done.add(batch.count)
      }
    }
  }

  // S14b: the consumer pays ~200 ns per event.
  register(.s14b, .openCombine, events: events) { benchmark in
    measureQueuedConsumer(benchmark, events: events, label: "bench.s14b.opencombine") { subject, queue, sink, done in
      subject.receive(on: queue.ocombine).sink { value in
        sink.sum &+= consumerCall(1) &+ value
        done.add()
      }
    }
  }

  // S15 zip-2: sends alternate the two subjects; ns per send.
  register(.s15, .openCombine, events: events) { benchmark in
    let sink = Sink()
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let cancellable = a.zip(b).sink { sink.sum &+= $0.0 &+ $0.1 }
    benchmark.startMeasurement()
    for i in 0..<(events / 2) {
      a.send(i)
      b.send(i)
    }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  // S17b first-response: per subscription, `prefix(1)` (OpenCombine's `first()` is the same).
  register(.s17b, .openCombine, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      let cancellable = subject.prefix(1).sink { sink.sum &+= $0 }
      subject.send(i)
      cancellable.cancel()
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // S17 collect-100
  register(.s17, .openCombine, events: events) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.collect(100).sink { batch in
      for value in batch { sink.sum &+= value }
    }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }
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
