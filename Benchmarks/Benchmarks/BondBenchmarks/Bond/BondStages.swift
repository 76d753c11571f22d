// Bond's pipeline stages: S13 partition (1 and 2 lanes), S14 batches against deliverOn with one
// consumer call per event, S18 send(contentsOf:) from an AsyncStream (buffered, and fed live by
// another thread).

import Benchmark
import Bond
import Dispatch
import Foundation

func registerBondStages() {
  // S13 partition: 1M events, 1,000 keys, ~1 µs of work per event on the lanes; timed until the
  // last event's work is done.
  for (scenario, lanes) in [(Scenario.s13a, 1), (.s13b, 2)] {
    register(scenario, .bond) { benchmark in
      let producer = EventProducer<Int>()
      let partition = producer.partition(lanes: lanes) { $0 % partitionKeys }
      let done = CompletionCounter(expected: million)
      let sinks = partition.lanes.map { _ in Sink() }
      let observations = zip(partition.lanes, sinks).map { lane, sink in
        lane.observe { value in
          sink.sum &+= partitionWork(value)
          done.add()
        }
      }
      benchmark.startMeasurement()
      for i in benchmark.scaledIterations { producer.next(i) }
      done.wait()
      benchmark.stopMeasurement()
      partition.dispose()
      for observation in observations { observation.dispose() }
      blackHole(sinks.reduce(0) { $0 &+ $1.sum })
    }
  }

  // S14a batches: the consumer pays ~200 ns per call, once per array.
  register(.s14a, .bond) { benchmark in
    measureQueuedConsumer(benchmark, label: "bench.s14a.bond") { producer, queue, sink, done in
      producer.batches(on: queue, maxCount: batchMaxCount).observe { batch in
        sink.sum &+= consumerCall(batch.count)
        for value in batch { sink.sum &+= value }
        done.add(batch.count)
      }
    }
  }

  // S14b deliverOn: the same consumer, called once per event.
  register(.s14b, .bond) { benchmark in
    measureQueuedConsumer(benchmark, label: "bench.s14b.bond") { producer, queue, sink, done in
      producer.deliverOn(queue).observe { value in
        sink.sum &+= consumerCall(1) &+ value
        done.add()
      }
    }
  }

  // S18a: send(contentsOf:) from an AsyncStream whose 1M elements are already buffered.
  registerAsync(.s18a, .bond) { benchmark in
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
  registerAsync(.s18b, .bond) { benchmark in
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
