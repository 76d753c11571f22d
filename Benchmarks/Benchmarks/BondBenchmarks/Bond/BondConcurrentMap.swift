// Bond S20b concurrent-map-overhead: `map(maxConcurrent: 2)` with a transform that returns at once,
// 100k events sent by `try await producer.send(i)` from the benchmark's task (it waits while the
// stage's buffer is full: default `bufferLimit` 1024), then `finish()`; timed until the stage's end,
// which comes after the last result. ns and mallocs per event: the stage's own cost.

import BenchWork
import Benchmark
import Bond

func registerBondConcurrentMap() {
  registerAsync(.s20b, .bond, events: concurrentMapEvents) { benchmark in
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
}
