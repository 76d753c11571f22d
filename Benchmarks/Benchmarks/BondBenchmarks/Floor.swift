// Baseline (c), the `floor` engine: what any engine that serializes its sends pays at least per
// send, with nothing else. The closure baseline is a bare call; a send that may come from several
// threads needs, besides, the uncontended atomic pair that takes and gives back the right to
// deliver. `FloorSender` (BenchWork, shared with perf/instructions) is exactly that pair around the closure baseline's call, mirroring the
// least Bond's single-source `next` does (`EventProducer+Drain.swift`): one compare-exchange
// 0 → 1 before the call, one subtraction after it, whose result is checked for work queued
// meanwhile. No queue, no observer list, no disposal check: the uncontended path only.
//
// Per scenario the floor is the closure baseline with every source send through a `FloorSender`:
// one serialized send per event, whatever the operator (S4 combineLatest, S5 merge-8 and S15 zip
// included: their target is the hand-written operator of the closure baseline).

import BenchWork
import Benchmark

/// Registers scenario `id`'s floor: `targets(sink)` makes the closure baseline's per-source closures
/// (1, 2, 4 or 8 of them); iteration `i` sends `i` through the atomic pair to source `i % count`.
func registerFloor(_ id: String, _ targets: @escaping (Sink) -> [(Int) -> Void]) {
  register(id, .floor) { benchmark in
    let sink = Sink()
    let senders = targets(sink).map { FloorSender(opaque($0)) }
    let mask = senders.count - 1
    precondition(senders.count & mask == 0, "registerFloor(\(id)): 1, 2, 4 or 8 sources, got \(senders.count)")
    // The loops of Bond's benchmarks: one producer; two, alternating; 8, from an array.
    let (first, second) = (senders[0], senders[mask == 0 ? 0 : 1])
    benchmark.startMeasurement()
    switch mask {
    case 0: for i in benchmark.scaledIterations { first.send(i) }
    case 1: for i in benchmark.scaledIterations { if i & 1 == 0 { first.send(i) } else { second.send(i) } }
    default: for i in benchmark.scaledIterations { senders[i & mask].send(i) }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}
