// S1 send-1: one producer, one observer, 1M `next` (the peers 100k).
// S10 concurrent-send: 2 threads x 500k into one producer, one observer; the engine serializes
// delivery (closure and naive: a lock around the call; OpenCombine: PassthroughSubject's
// per-subscription lock; AsyncAlgorithms: two sending tasks into one AsyncChannel).

import AsyncAlgorithms
import Benchmark
import Bond
import OpenCombine

func registerSend() {
  let events = peerEventsPerIteration

  register("S1", .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let disposable = producer.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }

  register("S1", .openCombine, events: events) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  registerAsync("S1", .asyncAlgorithms, events: events) { benchmark in
    let channel = AsyncChannel<Int>()
    let consumer = Task {
      var sum = 0
      for await value in channel { sum &+= value }
      return sum
    }
    benchmark.startMeasurement()
    for i in 0..<events { await channel.send(i) }
    channel.finish()
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  register("S1", .closure) { benchmark in
    let sink = Sink()
    let observer: (Int) -> Void = opaque { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { observer(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  registerFloor("S1") { sink in [{ sink.sum &+= $0 }] }

  register("S1", .naive) { benchmark in
    let sink = Sink()
    let subject = NaiveSubject<Int>()
    subject.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { subject.send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // S10 concurrent-send: 2 threads x 500k into one producer; the engine serializes delivery.
  register("S10", .bond) { benchmark in
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

  // S10 concurrent-send: PassthroughSubject serializes delivery to each subscriber with a
  // per-subscription recursive lock, so two threads may send at once.
  register("S10", .openCombine, events: events) { benchmark in
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

  // S10 concurrent-send: two sending tasks into one AsyncChannel, one consumer.
  registerAsync("S10", .asyncAlgorithms, events: events) { benchmark in
    let channel = AsyncChannel<Int>()
    let consumer = Task {
      var sum = 0
      for await value in channel { sum &+= value }
      return sum
    }
    let perTask = events / 2
    benchmark.startMeasurement()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<2 {
        group.addTask {
          for i in 0..<perTask { await channel.send(i) }
        }
      }
    }
    channel.finish()
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  register("S10", .closure) { benchmark in
    let sink = Sink()
    let serialized = Serialized<(Int) -> Void>(opaque { sink.sum &+= $0 })
    let perThread = million / 2
    benchmark.startMeasurement()
    runConcurrently(threads: 2) { _ in
      for i in 0..<perThread { serialized.lock.withLock { _ in serialized.target(i) } }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  register("S10", .naive) { benchmark in
    // The naive list holds its lock while calling observers.
    let sink = Sink()
    let subject = NaiveSubject<Int>()
    subject.observe { sink.sum &+= $0 }
    let serialized = Serialized(subject)
    let perThread = million / 2
    benchmark.startMeasurement()
    runConcurrently(threads: 2) { _ in
      for i in 0..<perThread { serialized.lock.withLock { _ in serialized.target.send(i) } }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}
