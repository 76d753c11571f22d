// Baselines of the pipeline-stage and vocabulary scenarios.
// naive S13: the hand-written partition, one serial DispatchQueue per lane and one `async` per
//   event (the same lane rule as Bond's). naive S18: a hand-written `for await` + `next` into an
//   EventProducer, then `finish()`. naive S20b: the hand-written TaskGroup sliding window of 2
//   (BenchWork's `taskGroupWindow`: a child task per event, results in order) with the same
//   transform that returns at once.
// closure S15: a closure per source, the second one pairing with the first's value; closure S16: a
//   closure reading the other's latest value; closure S17: an array reserved to 100, handed to a
//   closure when full.

import BenchWork
import Benchmark
import Bond
import Dispatch

func registerStagesBaselines() {
  registerAsync(.s20b, .naive, events: concurrentMapEvents) { benchmark in
    let sink = Sink()
    benchmark.startMeasurement()
    await taskGroupWindow(count: concurrentMapEvents, width: 2, { $0 }) { sink.sum &+= $0 }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  for (scenario, lanes) in [(Scenario.s13a, 1), (.s13b, 2)] {
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

  // S15 zip-2
  register(.s15, .closure) { benchmark in
    let sink = Sink()
    var pending = 0
    let first: (Int) -> Void = opaque { pending = $0 }
    let second: (Int) -> Void = opaque { sink.sum &+= pending &+ $0 }
    benchmark.startMeasurement()
    for i in 0..<(million / 2) {
      first(i)
      second(i)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // S16 with-latest-from
  register(.s16, .closure) { benchmark in
    let sink = Sink()
    var latest = 0
    let other: (Int) -> Void = opaque { latest = $0 }
    let source: (Int) -> Void = opaque { sink.sum &+= $0 &+ latest }
    other(7)
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { source(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // S17 collect-100
  register(.s17, .closure) { benchmark in
    let sink = Sink()
    let observer: ([Int]) -> Void = opaque { batch in
      for value in batch { sink.sum &+= value }
    }
    var batch: [Int] = []
    batch.reserveCapacity(100)
    let send: (Int) -> Void = opaque { value in
      batch.append(value)
      if batch.count == 100 {
        observer(batch)
        batch = []
        batch.reserveCapacity(100)
      }
    }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // S18a, S18b: for await + next.
  for (scenario, live) in [(Scenario.s18a, false), (.s18b, true)] {
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
