// Bond, core only (`EventProducer`): S1 send-1, S3 fanout-10, S8 replay-subscribe, S9 churn,
// S9b dispose-under-slow-observer, S10 concurrent-send.

import Benchmark
import Bond

func registerBondCore() {
  // S1 send-1
  register(.s1, .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let disposable = producer.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }

  // S3 fanout-10
  register(.s3, .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let disposables = (0..<10).map { _ in producer.observe { sink.sum &+= $0 } }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    for disposable in disposables { disposable.dispose() }
    blackHole(sink.sum)
  }

  // S8 replay-subscribe: replay 16, full; per subscription: observe (receives the 16), dispose.
  register(.s8, .bond, events: subscriptionsPerIteration) { benchmark in
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

  // S9 churn: one long-lived observer; per subscription: observe a second one, dispose it.
  register(.s9, .bond, events: subscriptionsPerIteration) { benchmark in
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

  // S9b dispose-under-slow-observer: 50 observations registered beforehand, disposed by the
  // measured thread while another thread sends to a slow observer of the same producer (it holds
  // the delivery rights ~20 µs per event). Measures the disposals only.
  register(.s9b, .bond, events: disposalsPerIteration) { benchmark in
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

  // S10 concurrent-send: 2 threads x 500k into one producer; the engine serializes delivery.
  register(.s10, .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let disposable = producer.observe { sink.sum &+= $0 }
    let perThread = million / 2
    benchmark.startMeasurement()
    runConcurrently(threads: 2) { _ in
      for i in 0..<perThread { producer.next(i) }
    }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }
}
