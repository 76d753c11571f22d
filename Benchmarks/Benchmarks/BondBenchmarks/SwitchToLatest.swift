// S6 switch-latest: a producer of producers, switched to the latest; a new inner every 100
// events (the inner producers are made inside the measured loop, for every engine).
// AsyncAlgorithms has no switch/flatMapLatest (n/a).

import Benchmark
import Bond
import OpenCombine

/// The current inner subscription of the hand-written switchToLatest.
private final class CurrentInner {
  var subject: NaiveSubject<Int>?
  var token = 0
  var observer: (Int) -> Void = { _ in }
}

func registerSwitchToLatest() {
  let events = peerEventsPerIteration

  register("S6", .bond) { benchmark in
    let sink = Sink()
    let outer = EventProducer<EventProducer<Int>>()
    let disposable = outer.switchToLatest().observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    var inner = EventProducer<Int>()
    for i in benchmark.scaledIterations {
      if i % 100 == 0 {
        inner = EventProducer<Int>()
        outer.next(inner)
      }
      inner.next(i)
    }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }

  register("S6", .openCombine, events: events) { benchmark in
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

  register("S6", .closure) { benchmark in
    let sink = Sink()
    let current = CurrentInner()
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      // Switching = replacing the closure the events go to (a new closure context each time).
      if i % 100 == 0 { current.observer = opaque { sink.sum &+= $0 } }
      current.observer(i)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  register("S6", .naive) { benchmark in
    let sink = Sink()
    let current = CurrentInner()
    let outer = NaiveSubject<NaiveSubject<Int>>()
    outer.observe { inner in
      current.subject?.remove(current.token)
      current.subject = inner
      current.token = inner.observe { sink.sum &+= $0 }
    }
    benchmark.startMeasurement()
    var inner = NaiveSubject<Int>()
    for i in benchmark.scaledIterations {
      if i % 100 == 0 {
        inner = NaiveSubject<Int>()
        outer.send(inner)
      }
      inner.send(i)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}
