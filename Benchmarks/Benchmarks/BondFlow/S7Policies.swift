// S19d: S7 (producer → deliverOn(serial DispatchQueue) → observer adding each Int into a sum, here
// `InOrder`, which also counts and checks the order; 1M `next` calls, timed until the last event
// has arrived) with a bounded `deliverOn` under `.backpressure` and under `.dropOldest` at equal
// load (the same sender, the same events), the unbounded S7 beside; with the issue's `bufferLimit: 10_000` and with a limit the run never
// reaches (1M + 1: only the policy's checks, no drop and no pressure). `next` never waits, so the
// `.backpressure` buffer can exceed its limit (its pressure is raised and released; nothing waits).
//
// One process for every variant (times only): the variants run interleaved, in a rotated order,
// `rounds` times each; the median round is reported.
import Bond
import Dispatch

struct S7Variant {
  let name: String
  /// nil: the unbounded `deliverOn(queue)`.
  let policy: DeliveryOverflowPolicy?
  let bufferLimit: Int

  /// One round: `events` sends; returns ns per event, delivered, dropped, pressures.
  func round(events: Int) -> (ns: Double, delivered: Int, dropped: Int, pressures: Int) {
    let queue = DispatchQueue(label: "bench.s19d")
    let statistics = DeliveryStatistics()
    let producer = EventProducer<Int>()
    let consumer = InOrder(workNanoseconds: 0, progress: Progress(), statistics: nil)
    let last = events - 1
    let done = DispatchSemaphore(value: 0)
    let stage =
      if let policy {
        producer.deliverOn(queue, bufferLimit: bufferLimit, whenFull: policy, statistics: statistics)
      } else {
        producer.deliverOn(queue)
      }
    // The last event is never dropped (`.dropOldest` drops the oldest waiting one).
    let observation = stage.observe { value in
      consumer.receive(value)
      if value == last { done.signal() }
    }
    let start = now()
    for i in 0..<events { producer.next(i) }
    done.wait()
    let ns = Double(now() - start) / Double(events)
    observation.dispose()
    precondition(consumer.checksum != 42 && consumer.outOfOrder == 0)  // keeps the sum alive
    return (ns, consumer.delivered, statistics.droppedCount, statistics.pressureCount)
  }
}

func runS7Policies(events: Int, rounds: Int) -> [[(String, Any)]] {
  let never = events + 1
  let variants = [
    S7Variant(name: "unbounded", policy: nil, bufferLimit: 0),
    S7Variant(name: "dropOldest 10k", policy: .dropOldest, bufferLimit: flowBufferLimit),
    S7Variant(name: "backpressure 10k", policy: .backpressure, bufferLimit: flowBufferLimit),
    S7Variant(name: "dropOldest never full", policy: .dropOldest, bufferLimit: never),
    S7Variant(name: "backpressure never full", policy: .backpressure, bufferLimit: never),
  ]
  // Warm-up: one round of each, not recorded.
  for variant in variants { _ = variant.round(events: events / 10) }
  var results = Array(repeating: [(ns: Double, delivered: Int, dropped: Int, pressures: Int)](), count: variants.count)
  for r in 0..<rounds {
    for k in 0..<variants.count {
      let index = (k + r) % variants.count
      results[index].append(variants[index].round(events: events))
    }
  }
  return zip(variants, results).map { variant, rounds in
    let sorted = rounds.sorted { $0.ns < $1.ns }
    let median = sorted[sorted.count / 2]
    return [
      ("case", "S19d"), ("variant", variant.name), ("events", events), ("rounds", rounds.count),
      ("ns_per_event", median.ns), ("ns_min", sorted[0].ns), ("ns_max", sorted[sorted.count - 1].ns),
      ("delivered", median.delivered), ("dropped", median.dropped), ("pressures", median.pressures),
    ]
  }
}
