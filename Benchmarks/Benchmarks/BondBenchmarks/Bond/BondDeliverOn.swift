// Bond S7 deliver-on: producer -> deliverOn(serial DispatchQueue) -> observer; 1M events, timed
// until the last one has arrived (end to end).

import Benchmark
import Bond
import Dispatch

func registerBondDeliverOn() {
  register(.s7, .bond) { benchmark in
    let queue = DispatchQueue(label: "bench.s7.bond")
    let counter = ArrivalCounter(expected: million)
    let producer = EventProducer<Int>()
    let disposable = producer.deliverOn(queue).observe { counter.receive($0) }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    counter.done.wait()
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(counter.sum)
  }
}
