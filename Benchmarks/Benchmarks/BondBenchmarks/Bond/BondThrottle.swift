// Bond S11 throttle: 1M events into throttle(seconds: 1, queue:) on a DispatchQueue; the
// per-event cost of the rate limiter (the window's delivery, 1 s later, is not waited for).

import Benchmark
import Bond
import Dispatch

func registerBondThrottle() {
  register(.s11, .bond) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.s11.bond")
    let producer = EventProducer<Int>()
    let disposable = producer.throttle(seconds: 1, queue: queue).observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(queue.sync { sink.sum })
  }
}
