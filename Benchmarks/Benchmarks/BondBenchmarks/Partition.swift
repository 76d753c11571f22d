// S13 partition: 1M events, 1,000 keys (event `i` has key `i % partitionKeys`), ~1 µs of work per
// event on the lanes; timed until the last event's work is done. S13a: 1 lane, S13b: 2 lanes.
// Bond: `partition(lanes:by:)`; naive: the hand-written partition, one serial DispatchQueue per
// lane and one `async` per event (the same lane rule as Bond's).

import BenchWork
import Benchmark
import Bond
import Dispatch

/// S13: distinct keys of the partitioned events (event `i` has key `i % partitionKeys`).
let partitionKeys = 1_000

/// S13's per-event transform: about 1 µs of hashing.
let microsecondOfWork = Swift.max(1, Int(1_000 * mixRoundsPerNanosecond))

/// S13's transform of one event.
@inline(__always)
func partitionWork(_ value: Int) -> Int {
  Int(truncatingIfNeeded: mix(UInt64(truncatingIfNeeded: value), rounds: microsecondOfWork))
}

/// The lane a hand-written partition sends key `key` to: the same rule as Bond's.
@inline(__always)
func lane(ofKey key: Int, lanes: Int) -> Int {
  Int(UInt(bitPattern: key.hashValue) % UInt(lanes))
}

func registerPartition() {
  // S13 partition: 1M events, 1,000 keys, ~1 µs of work per event on the lanes; timed until the
  // last event's work is done.
  for (scenario, lanes) in [("S13a", 1), ("S13b", 2)] {
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

  for (scenario, lanes) in [("S13a", 1), ("S13b", 2)] {
    register(scenario, .naive) { benchmark in
      let queues = (0..<lanes).map { DispatchQueue(label: "bench.s13.naive.lane\($0)") }
      let sinks = UncheckedBox((0..<lanes).map { _ in Sink() })
      let done = CompletionCounter(expected: million)
      benchmark.startMeasurement()
      for i in benchmark.scaledIterations {
        let index = lane(ofKey: i % partitionKeys, lanes: lanes)
        // Each lane's sink is touched only by its serial queue.
        queues[index].async {
          sinks.value[index].sum &+= partitionWork(i)
          done.add()
        }
      }
      done.wait()
      benchmark.stopMeasurement()
      blackHole(sinks.value.reduce(0) { $0 &+ $1.sum })
    }
  }
}
