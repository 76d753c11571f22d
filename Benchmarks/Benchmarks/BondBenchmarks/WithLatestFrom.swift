// S16 with-latest-from: `other` sent once, then 1M sends of the source. closure: a closure reading
// the other's latest value. OpenCombine has no withLatestFrom (n/a).

import Benchmark
import Bond

func registerWithLatestFrom() {
  // S16 with-latest-from: `other` sent once, then 1M sends of the source.
  register("S16", .bond) { benchmark in
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

  register("S16", .closure) { benchmark in
    let sink = Sink()
    // A class's field, as in the floor (a captured `var` is boxed and checked for exclusivity at
    // run time on every access).
    let latest = Sink()
    let other: (Int) -> Void = opaque { latest.sum = $0 }
    let source: (Int) -> Void = opaque { sink.sum &+= $0 &+ latest.sum }
    other(7)
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { source(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  registerFloor("S16") { sink in
    let latest = Sink()
    latest.sum = 7
    return [{ sink.sum &+= $0 &+ latest.sum }]
  }
}
