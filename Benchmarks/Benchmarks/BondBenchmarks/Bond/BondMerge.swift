// Bond S5 merge-8: 8 producers merged, round-robin sends.

import Benchmark
import Bond

func registerBondMerge() {
  register(.s5, .bond) { benchmark in
    let sink = Sink()
    let sources = (0..<8).map { _ in EventProducer<Int>() }
    let disposable = merge(sources).observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { sources[i & 7].next(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }
}
