// Subscriptions, per subscription or disposal:
// S8 replay-subscribe: a producer replaying 16 (full); observe (receives the 16), dispose.
// S9 churn: one long-lived observer; observe a second one, dispose it.
// S9b dispose-under-slow-observer: 50 observations registered beforehand, disposed by the measured
// thread while another thread sends to a slow observer of the same producer (`SlowObserverSender`).
// No replay subject in OpenCombine (S8 n/a); the AsyncAlgorithms channels have a single consumer
// (n/a); closure S9b: one closure has no observer to dispose while another is delivering (n/a).

import Benchmark
import Bond
import Dispatch
import Foundation
import OpenCombine
import Synchronization

func registerSubscriptions() {
  // S8 replay-subscribe: replay 16, full; per subscription: observe (receives the 16), dispose.
  register("S8", .bond, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>(replayLength: 16)
    for i in 0..<32 { producer.next(i) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let disposable = producer.observe { sink.sum &+= $0 }
      disposable.dispose()
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  register("S8", .closure, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let replay = Array(0..<16)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      // A new escaping observer, called on the 16 buffered values.
      let observer: (Int) -> Void = opaque { sink.sum &+= $0 }
      for value in replay { observer(value) }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  register("S8", .naive, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let subject = NaiveSubject<Int>(replayLength: 16)
    for i in 0..<32 { subject.send(i) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let token = subject.observe { sink.sum &+= $0 }
      subject.remove(token)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // S9 churn: one long-lived observer; per subscription: observe a second one, dispose it.
  register("S9", .bond, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let longLived = producer.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let disposable = producer.observe { sink.sum &+= $0 }
      disposable.dispose()
    }
    benchmark.stopMeasurement()
    longLived.dispose()
    blackHole(sink.sum)
  }

  register("S9", .openCombine, events: subscriptionsPerIteration) { benchmark in
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

  register("S9", .closure, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    var slot: ((Int) -> Void)?
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      // Registering = storing a new escaping closure; disposing = dropping it.
      slot = opaque { sink.sum &+= $0 }
      slot = opaque(nil)
    }
    benchmark.stopMeasurement()
    blackHole(slot)
    blackHole(sink.sum)
  }

  register("S9", .naive, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let subject = NaiveSubject<Int>()
    subject.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let token = subject.observe { sink.sum &+= $0 }
      subject.remove(token)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // S9b dispose-under-slow-observer: 50 observations registered beforehand, disposed by the
  // measured thread while another thread sends to a slow observer of the same producer (it holds
  // the delivery rights ~20 µs per event). Measures the disposals only.
  register("S9b", .bond, events: disposalsPerIteration) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let sender = SlowObserverSender()
    let slow = producer.observe { sender.slowObserver($0) }
    // The observers run on the sending thread only (the producer serializes delivery).
    let disposables = (0..<disposalsPerIteration).map { _ in producer.observe { sink.sum &+= $0 } }
    sender.start { producer.next($0) }
    benchmark.startMeasurement()
    for disposable in disposables { disposable.dispose() }
    benchmark.stopMeasurement()
    sender.stop()
    slow.dispose()
    blackHole(sink.sum)
  }

  // S9b dispose-under-slow-observer: cancel() 50 sinks while another thread sends to a slow
  // sink of the same subject (Support.swift, SlowObserverSender).
  register("S9b", .openCombine, events: disposalsPerIteration) { benchmark in
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

  register("S9b", .naive, events: disposalsPerIteration) { benchmark in
    // The naive list holds its lock while calling observers (as in S10): a removal waits for the
    // delivery in flight (Synchronization's Mutex hands the lock over on Linux: no starvation).
    let sink = Sink()
    let sender = SlowObserverSender()
    let subject = NaiveSubject<Int>()
    subject.observe { sender.slowObserver($0) }
    let tokens = (0..<disposalsPerIteration).map { _ in subject.observe { sink.sum &+= $0 } }
    let serialized = Serialized(subject)
    sender.start { i in serialized.lock.withLock { _ in serialized.target.send(i) } }
    benchmark.startMeasurement()
    for token in tokens { serialized.lock.withLock { _ in serialized.target.remove(token) } }
    benchmark.stopMeasurement()
    sender.stop()
    blackHole(sink.sum)
  }
}

// MARK: - S9b's slow observer

/// Disposals per iteration of S9b: few, because a `dispose()` that waits for the slow observer
/// (as Bond's once did) costs 20 µs to milliseconds on a loaded machine (its yield loop), and an
/// iteration must stay under 2 s.
let disposalsPerIteration = 50

/// How long S9b's slow observer takes per event: it busy-waits this long by itself, never waiting
/// for another thread, so a `dispose()` that waits for the delivery in flight (as Bond's once did)
/// waits a bounded time and the scenario cannot deadlock.
let slowObserverNanoseconds: UInt64 = 20_000

/// S9b's other thread: it sends events one after another into the engine, whose slow observer
/// (`slowObserver`) is delivering nearly all the time, while the measured thread disposes.
///
/// Use: register the slow observer (calling `slowObserver`) and the observations to dispose,
/// `start` (returns once the slow observer has received its first event, so the sender holds the
/// delivery when the measurement starts), measure the disposals, `stop` (returns once the sender
/// has left its loop).
final class SlowObserverSender: Sendable {
  private let stopRequested = Atomic<Bool>(false)
  private let firstDeliveryDone = Atomic<Bool>(false)
  /// Events the slow observer has finished.
  private let delivered = Atomic<Int>(0)
  private let firstDelivery = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)

  /// The slow observer's body: signals the first delivery, then busy-waits
  /// `slowObserverNanoseconds` (on the clock, so a descheduled sender does not stretch it).
  func slowObserver(_ value: Int) {
    if !firstDeliveryDone.load(ordering: .relaxed) {
      firstDeliveryDone.store(true, ordering: .relaxed)
      firstDelivery.signal()
    }
    let end = DispatchTime.now().uptimeNanoseconds &+ slowObserverNanoseconds
    while DispatchTime.now().uptimeNanoseconds < end {}
    blackHole(value)
    delivered.add(1, ordering: .releasing)
  }

  /// Starts a thread calling `send(0)`, `send(1)`, ... until `stop()`; returns once the slow
  /// observer has been called.
  func start(_ send: @escaping @Sendable (Int) -> Void) {
    let thread = Thread { [self] in
      var i = 0
      while !stopRequested.load(ordering: .relaxed) {
        send(i)
        i &+= 1
        // Paced by the slow observer: the next event only once this one has been delivered. When
        // the sender holds the delivery it has been (send returned after it); when another thread
        // holds it (a dispose() that found the producer idle), the event was queued and that thread
        // delivers it within ~20 µs. Without this, the sender would queue events faster than the
        // other thread delivers them, and that thread would never get back (unbounded queue).
        while delivered.load(ordering: .acquiring) < i && !stopRequested.load(ordering: .relaxed) {}
      }
      finished.signal()
    }
    thread.start()
    firstDelivery.wait()
  }

  /// Stops the sending thread and waits until it has left its loop.
  func stop() {
    stopRequested.store(true, ordering: .relaxed)
    finished.wait()
  }
}
