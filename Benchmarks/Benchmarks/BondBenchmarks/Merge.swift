// S5 merge-8: 8 producers merged, round-robin sends. OpenCombine has no Merge of 8 (n/a);
// AsyncAlgorithms merges at most 3 sequences at a time (3 + 3 + 2).

import AsyncAlgorithms
import Benchmark
import Bond

func registerMerge() {
  let events = peerEventsPerIteration

  register("S5", .bond) { benchmark in
    let sink = Sink()
    let sources = (0..<8).map { _ in EventProducer<Int>() }
    let disposable = merge(sources).observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { sources[i & 7].next(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }

  // S5 merge-8: merge takes 2 or 3 sequences, so 8 are merged as 3 + 3 + 2.
  registerAsync("S5", .asyncAlgorithms, events: events) { benchmark in
    let sources = (0..<8).map { _ in AsyncChannel<Int>() }
    let merged = merge(
      merge(sources[0], sources[1], sources[2]),
      merge(sources[3], sources[4], sources[5]),
      merge(sources[6], sources[7])
    )
    let consumer = Task {
      var sum = 0
      for await value in merged { sum &+= value }
      return sum
    }
    benchmark.startMeasurement()
    for i in 0..<events { await sources[i & 7].send(i) }
    for source in sources { source.finish() }
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  register("S5", .closure) { benchmark in
    let sink = Sink()
    let observer: (Int) -> Void = opaque { sink.sum &+= $0 }
    // One forwarding closure per source, each calling the one observer.
    let sources: [(Int) -> Void] = (0..<8).map { _ in opaque { observer($0) } }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { sources[i & 7](i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  registerFloor("S5") { sink in
    let observer: (Int) -> Void = opaque { sink.sum &+= $0 }
    return (0..<8).map { _ in { observer($0) } }
  }

  register("S5", .naive) { benchmark in
    let sink = Sink()
    let merged = NaiveSubject<Int>()
    merged.observe { sink.sum &+= $0 }
    let sources = (0..<8).map { _ in NaiveSubject<Int>() }
    for source in sources { source.observe { merged.send($0) } }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { sources[i & 7].send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}
