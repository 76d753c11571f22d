// S23 timeout: 100k events into `timeout(seconds: 1, queue:)` on a DispatchQueue, each event
// re-arming the timer (it never fires while measured); S23b: the same events into
// `debounce(seconds: 1, queue:)` on the same kind of queue, the operator with the same per-event
// work (a lock, a cancel, a `schedule(after:)`). OpenCombine: `timeout(_:scheduler:)` and
// `debounce(for:scheduler:)` on `queue.ocombine`. The per-event cost only: nothing is waited for.
// 100k events per iteration for every engine: each event leaves a cancelled 1 s timer on the
// queue, and fewer events keep that backlog small.

import Benchmark
import Bond
import Dispatch
import OpenCombine
import OpenCombineDispatch

/// S23: events per iteration, for every engine.
let rearmEvents = 100_000

func registerTimeout() {
  register("S23a", .bond, events: rearmEvents) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.s23a.bond")
    let producer = EventProducer<Int>()
    let observation = producer.timeout(seconds: 1, queue: queue).observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<rearmEvents { producer.next(i) }
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(queue.sync { sink.sum })
  }

  register("S23b", .bond, events: rearmEvents) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.s23b.bond")
    let producer = EventProducer<Int>()
    let observation = producer.debounce(seconds: 1, queue: queue).observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<rearmEvents { producer.next(i) }
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(queue.sync { sink.sum })
  }

  register("S23a", .openCombine, events: rearmEvents) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.s23a.opencombine")
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.timeout(.seconds(1), scheduler: queue.ocombine).sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<rearmEvents { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(queue.sync { sink.sum })
  }

  register("S23b", .openCombine, events: rearmEvents) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.s23b.opencombine")
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.debounce(for: .seconds(1), scheduler: queue.ocombine).sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<rearmEvents { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(queue.sync { sink.sum })
  }
}
