// S24 the operators that keep no buffer, 1M events each, Bond only: their allocations per event
// are gated at 0 (perf/allocation-thresholds.json). S24a `scan`, S24b `distinct(by:)` (half the
// events are duplicates), S24c `pairwise`, S24d `count`, S24e `contains(where:)` (never true),
// S24f `min`, S24g `max`, S24h `last`. The aggregates deliver at the end only, which is not
// measured: the figures are their per-event cost.

import Benchmark
import Bond

func registerAggregates() {
  measureNoBuffer("S24a") { producer, sink in producer.scan(0, &+).observe { sink.sum &+= $0 } }
  measureNoBuffer("S24b") { producer, sink in
    producer.distinct(by: { $0 / 2 == $1 / 2 }).observe { sink.sum &+= $0 }
  }
  measureNoBuffer("S24c") { producer, sink in producer.pairwise().observe { sink.sum &+= $0.0 &+ $0.1 } }
  measureNoBuffer("S24d") { producer, sink in producer.count().observe { sink.sum &+= $0 } }
  measureNoBuffer("S24e") { producer, sink in
    producer.contains(where: { $0 < 0 }).observe { sink.sum &+= $0 ? 1 : 0 }
  }
  measureNoBuffer("S24f") { producer, sink in producer.min().observe { sink.sum &+= $0 } }
  measureNoBuffer("S24g") { producer, sink in producer.max().observe { sink.sum &+= $0 } }
  measureNoBuffer("S24h") { producer, sink in producer.last().observe { sink.sum &+= $0 } }
}

/// Registers Bond's `scenario`: `observe` connects the operator under test to a producer; 1M sends.
private func measureNoBuffer(
  _ scenario: String,
  _ observe: @escaping (EventProducer<Int>, Sink) -> any DisposableType
) {
  register(scenario, .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let observation = observe(producer, sink)
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }
}
