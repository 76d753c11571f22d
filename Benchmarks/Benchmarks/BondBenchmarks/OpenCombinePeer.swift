// Peer: OpenCombine 0.14 (`PassthroughSubject` + `sink`), push-based like Bond.
// S9b: cancel() while another thread sends to a slow sink (a cancel does not wait for a delivery).
// No cell for S4 combine-latest and S5 merge-8 (OpenCombine has no CombineLatest and no Merge),
// S8 (no replay subject) and S12 (no observable array).
//
// Each iteration sends 100,000 events (`peerEventsPerIteration`), not 1M as Bond and the
// baselines: at 0.2-3 µs per event a 1M iteration can pass 2 s, and package-benchmark drops
// the throughput of such an iteration (and with it the benchmark, from the JMH export).

import Benchmark
import Dispatch
import OpenCombine
import OpenCombineDispatch

func registerOpenCombine() {
  let events = peerEventsPerIteration

  // S1 send-1
  register(.s1, .openCombine, events: events) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  // S2 chain
  register(.s2, .openCombine, events: events) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable =
      subject
      .map { $0 + 1 }
      .filter { $0 % 2 == 0 }
      .map { $0 * 2 }
      .sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  // S3 fanout-10
  register(.s3, .openCombine, events: events) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellables = (0..<10).map { _ in subject.sink { sink.sum &+= $0 } }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    benchmark.stopMeasurement()
    for cancellable in cancellables { cancellable.cancel() }
    blackHole(sink.sum)
  }

  // S6 switch-latest
  register(.s6, .openCombine, events: events) { benchmark in
    let sink = Sink()
    let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
    let cancellable = outer.switchToLatest().sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    var inner = PassthroughSubject<Int, Never>()
    for i in 0..<events {
      if i % 100 == 0 {
        inner = PassthroughSubject<Int, Never>()
        outer.send(inner)
      }
      inner.send(i)
    }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  // S7 deliver-on: receive(on: DispatchQueue)
  register(.s7, .openCombine, events: events) { benchmark in
    let queue = DispatchQueue(label: "bench.s7.opencombine")
    let counter = ArrivalCounter(expected: events)
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.receive(on: queue.ocombine).sink { counter.receive($0) }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    counter.done.wait()
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(counter.sum)
  }

  // S9 churn
  register(.s9, .openCombine, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let longLived = subject.sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let cancellable = subject.sink { sink.sum &+= $0 }
      cancellable.cancel()
    }
    benchmark.stopMeasurement()
    longLived.cancel()
    blackHole(sink.sum)
  }

  // S9b dispose-under-slow-observer: cancel() 50 sinks while another thread sends to a slow
  // sink of the same subject (Support.swift, SlowObserverSender).
  register(.s9b, .openCombine, events: disposalsPerIteration) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let sender = SlowObserverSender()
    let slow = subject.sink { sender.slowObserver($0) }
    // Each sink's lock serializes its deliveries, all on the sending thread.
    let cancellables = (0..<disposalsPerIteration).map { _ in subject.sink { sink.sum &+= $0 } }
    // UncheckedBox: PassthroughSubject is thread-safe but not declared Sendable.
    let shared = UncheckedBox(subject)
    sender.start { shared.value.send($0) }
    benchmark.startMeasurement()
    for cancellable in cancellables { cancellable.cancel() }
    benchmark.stopMeasurement()
    sender.stop()
    slow.cancel()
    blackHole(sink.sum)
  }

  // S10 concurrent-send: PassthroughSubject serializes delivery to each subscriber with a
  // per-subscription recursive lock, so two threads may send at once.
  register(.s10, .openCombine, events: events) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.sink { sink.sum &+= $0 }
    // UncheckedBox: PassthroughSubject is thread-safe but not declared Sendable.
    let shared = UncheckedBox(subject)
    let perThread = events / 2
    benchmark.startMeasurement()
    runConcurrently(threads: 2) { _ in
      for i in 0..<perThread { shared.value.send(i) }
    }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  // S11 throttle(for: 1 s, scheduler: DispatchQueue, latest: true)
  register(.s11, .openCombine, events: events) { benchmark in
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
}
