// S15 zip-2: 1M sends (OpenCombine 100k) alternating the two sources, one pair delivered per two
// sends; ns per send. closure: a closure per source, the second pairing with the first's value.

import Benchmark
import Bond
import OpenCombine

func registerZip() {
  let events = peerEventsPerIteration

  // S15 zip-2: 1M sends, alternating the two sources (500k pairs delivered); ns per send.
  register("S15", .bond) { benchmark in
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

  // S15 zip-2: sends alternate the two subjects; ns per send.
  register("S15", .openCombine, events: events) { benchmark in
    let sink = Sink()
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let cancellable = a.zip(b).sink { sink.sum &+= $0.0 &+ $0.1 }
    benchmark.startMeasurement()
    for i in 0..<(events / 2) {
      a.send(i)
      b.send(i)
    }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  register("S15", .closure) { benchmark in
    let sink = Sink()
    // A class's field, as in the floor: a captured `var` would be boxed and every access to it
    // checked for exclusivity at run time, which made this baseline slower than the floor.
    let pending = Sink()
    let first: (Int) -> Void = opaque { pending.sum = $0 }
    let second: (Int) -> Void = opaque { sink.sum &+= pending.sum &+ $0 }
    benchmark.startMeasurement()
    for i in 0..<(million / 2) {
      first(i)
      second(i)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  // The floor: the closure baseline's two closures, each behind a source's atomic pair.
  registerFloor("S15") { sink in
    let pending = Sink()
    return [{ pending.sum = $0 }, { sink.sum &+= pending.sum &+ $0 }]
  }
}
