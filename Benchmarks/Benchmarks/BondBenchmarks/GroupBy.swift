// S22 group-by: 1M events over 1,000 keys (event `i` has key `i % groupKeys`), one observer per
// group, both fed by `next` on one producer. Bond = `groupBy`, each group observed inside its
// delivery; naive = the hand-written dictionary of producers in an observer of that producer: a
// `[Int: EventProducer<Int>]` looked up per event, a producer made on a key's first event and
// observed once. Each iteration starts with no group (1,000 groups made per 1M events, inside the
// measured loop, for both).

import Benchmark
import Bond

/// S22: distinct keys of the grouped events.
let groupKeys = 1_000

func registerGroupBy() {
  register("S22", .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    // Events and groups are delivered on the sending thread, one at a time.
    let observation = producer.groupBy { $0 % groupKeys }.observe { group in
      group.events.observe { sink.sum &+= $0 }
    }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    observation.dispose()
    blackHole(sink.sum)
  }

  register("S22", .naive) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    var groups: [Int: EventProducer<Int>] = [:]
    // Events are delivered on the sending thread, one at a time: `groups` has one user at a time.
    let observation = producer.observe { value in
      let key = value % groupKeys
      if let group = groups[key] {
        group.next(value)
      } else {
        let group = EventProducer<Int>()
        groups[key] = group
        group.observe { sink.sum &+= $0 }
        group.next(value)
      }
    }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    observation.dispose()
    for group in groups.values { group.finish() }
    blackHole(sink.sum)
  }
}
