// S11 throttle: 1M events (the peers 100k) into `throttle(seconds: 1)` on a DispatchQueue: the
// per-event cost of the rate limiter (the window's delivery, 1 s later, is not waited for).
// OpenCombine: `throttle(for: 1 s, scheduler:, latest: true)`; closure: the floor of a rate
// limiter, a closure call keeping the latest value; naive: a hand-written throttle.

import Benchmark
import Bond
import Dispatch
import OpenCombine
import OpenCombineDispatch
import Synchronization

/// A hand-written Bond-style throttle: an event opens a 1 s window; at its end the latest event
/// is delivered on the queue.
private final class NaiveThrottle: @unchecked Sendable {
  // @unchecked Sendable: the state is guarded by the mutex; `observer` runs only on `queue`.
  private let state = Mutex<(latest: Int, open: Bool)>((0, false))
  private let queue: DispatchQueue
  private let observer: (Int) -> Void

  init(queue: DispatchQueue, observer: @escaping (Int) -> Void) {
    self.queue = queue
    self.observer = observer
  }

  func send(_ value: Int) {
    let opens = state.withLock { state in
      state.latest = value
      if state.open { return false }
      state.open = true
      return true
    }
    // Scheduled after unlocking: never call out while holding the lock.
    if opens {
      queue.asyncAfter(deadline: .now() + 1) { [weak self] in self?.closeWindow() }
    }
  }

  private func closeWindow() {
    let latest = state.withLock { state in
      state.open = false
      return state.latest
    }
    observer(latest)
  }
}

func registerThrottle() {
  let events = peerEventsPerIteration

  register("S11", .bond) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.s11.bond")
    let producer = EventProducer<Int>()
    let disposable = producer.throttle(seconds: 1, scheduler: queue).observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(queue.sync { sink.sum })
  }

  // S11 throttle(for: 1 s, scheduler: DispatchQueue, latest: true)
  register("S11", .openCombine, events: events) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.s11.opencombine")
    let subject = PassthroughSubject<Int, Never>()
    let cancellable =
      subject
      .throttle(for: .seconds(1), scheduler: queue.ocombine, latest: true)
      .sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(queue.sync { sink.sum })
  }

  register("S11", .closure) { benchmark in
    // The floor of a rate limiter: one closure call per event that keeps the latest value.
    let sink = Sink()
    let observer: (Int) -> Void = opaque { sink.sum = $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { observer(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  register("S11", .naive) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.s11.naive")
    let subject = NaiveSubject<Int>()
    let throttle = NaiveThrottle(queue: queue) { sink.sum &+= $0 }
    subject.observe { throttle.send($0) }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { subject.send(i) }
    benchmark.stopMeasurement()
    blackHole(queue.sync { sink.sum })
  }
}
