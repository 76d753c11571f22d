// S17 collect-100: 1M sends (OpenCombine 100k), one array of 100 delivered per 100; closure: an
// array reserved to 100, handed to a closure when full.
// S17b first-response, per subscription: observe `first()` (OpenCombine `prefix(1)`), one event
// arrives, the observation ends.

import Benchmark
import Bond
import OpenCombine

func registerCollect() {
  let events = peerEventsPerIteration

  // S17 collect-100: 1M sends, one array of 100 delivered per 100.
  register("S17", .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let observation = producer.collect(count: 100).observe { batch in
      for value in batch { sink.sum &+= value }
    }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }

  register("S17", .openCombine, events: events) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.collect(100).sink { batch in
      for value in batch { sink.sum &+= value }
    }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  register("S17", .closure) { benchmark in
    let sink = Sink()
    let observer: ([Int]) -> Void = opaque { batch in
      for value in batch { sink.sum &+= value }
    }
    var batch: [Int] = []
    batch.reserveCapacity(100)
    let send: (Int) -> Void = opaque { value in
      batch.append(value)
      if batch.count == 100 {
        observer(batch)
        batch = []
        batch.reserveCapacity(100)
      }
    }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  registerFloor("S17") { sink in
    let observer: ([Int]) -> Void = opaque { batch in
      for value in batch { sink.sum &+= value }
    }
    var batch: [Int] = []
    batch.reserveCapacity(100)
    return [
      { value in
        batch.append(value)
        if batch.count == 100 {
          observer(batch)
          batch = []
          batch.reserveCapacity(100)
        }
      }
    ]
  }

  // S17b first-response: per subscription, observe `first()` (Bond's `take(1)`), one event
  // arrives, the observation ends and stops observing the producer.
  register("S17b", .bond, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      producer.first().observe { sink.sum &+= $0 }
      producer.next(i)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // S17b first-response: per subscription, `prefix(1)` (OpenCombine's `first()` is the same).
  register("S17b", .openCombine, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      let cancellable = subject.prefix(1).sink { sink.sum &+= $0 }
      subject.send(i)
      cancellable.cancel()
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}
