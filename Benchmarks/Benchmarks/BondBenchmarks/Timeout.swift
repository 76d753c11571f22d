// S23 timeout: 100k events into `timeout(seconds: 1, scheduler:)` on a DispatchQueue, each event
// re-arming the timer (it never fires while measured); S23b: the same events into
// `debounce(seconds: 1, scheduler:)` on the same kind of queue, the operator with the same per-event
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
  measureRearm("S23a") { producer, queue, sink in
    producer.timeout(seconds: 1, scheduler: queue).observe { sink.sum &+= $0 }
  }
  measureRearm("S23b") { producer, queue, sink in
    producer.debounce(seconds: 1, scheduler: queue).observe { sink.sum &+= $0 }
  }
  measureRearmOpenCombine("S23a") { subject, queue, sink in
    subject.timeout(.seconds(1), scheduler: queue.ocombine).sink { sink.sum &+= $0 }
  }
  measureRearmOpenCombine("S23b") { subject, queue, sink in
    subject.debounce(for: .seconds(1), scheduler: queue.ocombine).sink { sink.sum &+= $0 }
  }
}

/// Registers Bond's `scenario`: `observe` connects the operator on `queue` to a producer;
/// `rearmEvents` sends, then the sum is read on the queue.
private func measureRearm(
  _ scenario: String,
  _ observe: @escaping (EventProducer<Int>, DispatchQueue, Sink) -> any DisposableType
) {
  register(scenario, .bond, events: rearmEvents) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.\(scenario).bond")
    let producer = EventProducer<Int>()
    let observation = observe(producer, queue, sink)
    benchmark.startMeasurement()
    for i in 0..<rearmEvents { producer.next(i) }
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(queue.sync { sink.sum })
  }
}

/// Registers OpenCombine's `scenario`: `subscribe` connects the operator on `queue` to a subject;
/// `rearmEvents` sends, then the sum is read on the queue.
private func measureRearmOpenCombine(
  _ scenario: String,
  _ subscribe: @escaping (PassthroughSubject<Int, Never>, DispatchQueue, Sink) -> AnyCancellable
) {
  register(scenario, .openCombine, events: rearmEvents) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.\(scenario).opencombine")
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subscribe(subject, queue, sink)
    benchmark.startMeasurement()
    for i in 0..<rearmEvents { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(queue.sync { sink.sum })
  }
}
