// S20b concurrent-map-overhead: 100k events for every engine (the TaskGroup window starts a task
// per event, 1-3 µs each here, and an iteration must stay under 2 s), a transform that returns at
// once. Bond: `map(maxConcurrent: 2)`; naive: the hand-written TaskGroup sliding window of 2
// (BenchWork's `taskGroupWindow`: a child task per event, results in order); OpenCombine:
// `flatMap(maxPublishers: .max(2))` over a `Just` per event (synchronous: each inner publisher
// completes at once, so the next event finds a free slot).
// Bond is fed by `try await producer.send(i)` from the benchmark's task (it waits while the stage's
// buffer is full: the default `bufferLimit` 1024), then `finish()`; timed until the stage's end,
// which comes after the last result: the stage's own cost.

import BenchWork
import Benchmark
import Bond
import OpenCombine

/// S20b: events per iteration, for every engine (the TaskGroup window starts a task per event,
/// 1-3 µs each here, and an iteration must stay under 2 s).
let concurrentMapEvents = 100_000

func registerConcurrentMap() {
  registerAsync("S20b", .bond, events: concurrentMapEvents) { benchmark in
    let sink = Sink()
    let completion = Completion(count: 1)
    let producer = EventProducer<Int>()
    // One delivery at a time: the sink is touched by one thread at a time.
    let observation = producer.map(maxConcurrent: 2) { $0 }
      .observe({ sink.sum &+= $0 }, finished: { completion.finishOne() })
    benchmark.startMeasurement()
    for i in 0..<concurrentMapEvents { try? await producer.send(i) }
    producer.finish()
    await completion.wait()
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }

  registerAsync("S20b", .naive, events: concurrentMapEvents) { benchmark in
    let sink = Sink()
    benchmark.startMeasurement()
    await taskGroupWindow(count: concurrentMapEvents, width: 2, { $0 }) { sink.sum &+= $0 }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // S20b: flatMap(maxPublishers: .max(2)) over a Just per event (synchronous: each inner
  // publisher completes at once, so the next event finds a free slot).
  register("S20b", .openCombine, events: concurrentMapEvents) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.flatMap(maxPublishers: .max(2)) { Just($0) }.sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<concurrentMapEvents { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }
}
