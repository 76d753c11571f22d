// Bond S6 switch-latest: a producer of producers, switched to the latest; a new inner every 100
// events (the inner producers are made inside the measured loop, as for every engine).

import Benchmark
import Bond

func registerBondSwitchToLatest() {
  register(.s6, .bond) { benchmark in
    let sink = Sink()
    let outer = EventProducer<EventProducer<Int>>()
    let disposable = outer.switchToLatest().observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    var inner = EventProducer<Int>()
    for i in benchmark.scaledIterations {
      if i % 100 == 0 {
        inner = EventProducer<Int>()
        outer.next(inner)
      }
      inner.next(i)
    }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }
}
