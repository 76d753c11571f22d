// S7d deliver-on-dedicated: producer -> `deliverOn` on a `DedicatedThreadScheduler(.busySpin)` ->
// observer; 1M events, timed until the last one has arrived (end to end). Bond: the ring the
// scheduler's thread polls; closure: one `schedule` per event on the same scheduler (the unbatched
// hop through its queue of actions).

import Benchmark
import Bond

func registerDeliverOnDedicated() {
  register("S7d", .bond) { benchmark in
    let scheduler = DedicatedThreadScheduler(waitStrategy: .busySpin)
    let counter = ArrivalCounter(expected: million)
    let producer = EventProducer<Int>()
    let disposable = producer.deliverOn(scheduler).observe { counter.receive($0) }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    counter.done.wait()
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(counter.sum)
  }

  register("S7d", .closure) { benchmark in
    let scheduler = DedicatedThreadScheduler(waitStrategy: .busySpin)
    let counter = ArrivalCounter(expected: million)
    let observer = UncheckedBox<(Int) -> Void>(opaque { counter.receive($0) })
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { scheduler.schedule { observer.value(i) } }
    counter.done.wait()
    benchmark.stopMeasurement()
    blackHole(counter.sum)
  }
}
