// Bond S2 chain: producer -> map {$0+1} -> filter {even} -> map {$0*2} -> observer.

import Benchmark
import Bond

func registerBondMapFilter() {
  register(.s2, .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let disposable =
      producer
      .map { $0 + 1 }
      .filter { $0 % 2 == 0 }
      .map { $0 * 2 }
      .observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }
}
