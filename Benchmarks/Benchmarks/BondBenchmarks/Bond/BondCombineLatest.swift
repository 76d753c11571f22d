// Bond S4 combine-latest: two producers, alternate sends, observer of the tuple.

import Benchmark
import Bond

func registerBondCombineLatest() {
  register(.s4, .bond) { benchmark in
    let sink = Sink()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let disposable = combineLatest(first, second).observe { pair in sink.sum &+= pair.0 &+ pair.1 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      if i & 1 == 0 { first.next(i) } else { second.next(i) }
    }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }
}
