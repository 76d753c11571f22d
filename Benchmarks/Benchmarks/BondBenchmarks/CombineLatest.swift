// S4 combine-latest: two producers, alternate sends, an observer of the pair. OpenCombine has no
// CombineLatest (n/a).

import AsyncAlgorithms
import Benchmark
import Bond

/// The latest value of each side of a hand-written combineLatest.
private final class LatestPair {
  var first: Int?
  var second: Int?
}

func registerCombineLatest() {
  let events = peerEventsPerIteration

  register("S4", .bond) { benchmark in
    let sink = Sink()
    let first = EventProducer<Int>()
    let second = EventProducer<Int>()
    let disposable = combineLatest(first, second).observe { pair in sink.sum &+= pair.0 &+ pair.1 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      if i & 1 == 0 { first.next(i) } else { second.next(i) }
    }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }

  registerAsync("S4", .asyncAlgorithms, events: events) { benchmark in
    let first = AsyncChannel<Int>()
    let second = AsyncChannel<Int>()
    let consumer = Task {
      var sum = 0
      for await (a, b) in combineLatest(first, second) { sum &+= a &+ b }
      return sum
    }
    benchmark.startMeasurement()
    for i in 0..<events {
      if i & 1 == 0 { await first.send(i) } else { await second.send(i) }
    }
    first.finish()
    second.finish()
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  register("S4", .closure) { benchmark in
    let sink = Sink()
    let latest = LatestPair()
    let observer: ((Int, Int)) -> Void = opaque { pair in sink.sum &+= pair.0 &+ pair.1 }
    let onFirst: (Int) -> Void = opaque { value in
      latest.first = value
      if let second = latest.second { observer((value, second)) }
    }
    let onSecond: (Int) -> Void = opaque { value in
      latest.second = value
      if let first = latest.first { observer((first, value)) }
    }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      if i & 1 == 0 { onFirst(i) } else { onSecond(i) }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  registerFloor("S4") { sink in
    let latest = LatestPair()
    let observer: ((Int, Int)) -> Void = opaque { pair in sink.sum &+= pair.0 &+ pair.1 }
    return [
      { value in
        latest.first = value
        if let second = latest.second { observer((value, second)) }
      },
      { value in
        latest.second = value
        if let first = latest.first { observer((first, value)) }
      },
    ]
  }

  register("S4", .naive) { benchmark in
    let sink = Sink()
    let latest = LatestPair()
    let first = NaiveSubject<Int>()
    let second = NaiveSubject<Int>()
    let combined = NaiveSubject<(Int, Int)>()
    first.observe { value in
      latest.first = value
      if let other = latest.second { combined.send((value, other)) }
    }
    second.observe { value in
      latest.second = value
      if let other = latest.first { combined.send((other, value)) }
    }
    combined.observe { pair in sink.sum &+= pair.0 &+ pair.1 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      if i & 1 == 0 { first.send(i) } else { second.send(i) }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}
