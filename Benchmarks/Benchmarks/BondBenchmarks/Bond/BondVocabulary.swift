// Bond's everyday operators: S15 zip of two sources, S16 withLatestFrom, S17 collect(count: 100),
// S17b first() per subscription.

import Benchmark
import Bond

func registerBondVocabulary() {
  // S15 zip-2: 1M sends, alternating the two sources (500k pairs delivered); ns per send.
  register(.s15, .bond) { benchmark in
    let sink = Sink()
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let observation = zip(a, b).observe { sink.sum &+= $0.0 &+ $0.1 }
    benchmark.startMeasurement()
    for i in 0..<(million / 2) {
      a.next(i)
      b.next(i)
    }
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }

  // S16 with-latest-from: `other` sent once, then 1M sends of the source.
  register(.s16, .bond) { benchmark in
    let sink = Sink()
    let source = EventProducer<Int>()
    let other = EventProducer<Int>()
    let observation = source.withLatestFrom(other).observe { sink.sum &+= $0.0 &+ $0.1 }
    other.next(7)
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { source.next(i) }
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }

  // S17 collect-100: 1M sends, one array of 100 delivered per 100.
  register(.s17, .bond) { benchmark in
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

  // S17b first-response: per subscription, observe `first()` (Bond's `take(1)`), one event
  // arrives, the observation ends and stops observing the producer.
  register(.s17b, .bond, events: subscriptionsPerIteration) { benchmark in
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
}
