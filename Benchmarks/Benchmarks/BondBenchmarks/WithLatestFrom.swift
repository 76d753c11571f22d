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
    var latest = 0
    let other: (Int) -> Void = opaque { latest = $0 }
    let source: (Int) -> Void = opaque { sink.sum &+= $0 &+ latest }
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
