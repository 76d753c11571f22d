// Entry point of the suite: package-benchmark's `BenchmarkPlugin` calls `benchmarks`.
//
// One file per scenario family, every engine of the family side by side: Bond, the peers
// OpenCombine and swift-async-algorithms, and the baselines `closure` (a plain closure call),
// `floor` (that call between the uncontended atomic pair any serialized send needs: Floor.swift)
// and `naive` (the hand-written alternative). perf/scenarios.json lists every scenario, the
// engines it has and its file. Run everything with `perf/bench` from the repository root.

import Benchmark

let benchmarks: @Sendable () -> Void = {
  registerCalibration()
  registerSend()  // S1 S10
  registerChain()  // S2
  registerFanout()  // S3
  registerCombineLatest()  // S4
  registerMerge()  // S5
  registerSwitchToLatest()  // S6
  registerDeliverOn()  // S7
  registerDeliverOnDedicated()  // S7d
  registerSubscriptions()  // S8 S9 S9b
  registerThrottle()  // S11
  registerObservableArray()  // S12a S12b S12c S12d
  registerPartition()  // S13a S13b
  registerBatches()  // S14a S14b
  registerZip()  // S15
  registerWithLatestFrom()  // S16
  registerCollect()  // S17 S17b
  registerAsyncIn()  // S18a S18b
  registerConcurrentMap()  // S20b
  registerGroupBy()  // S22
  registerTimeout()  // S23a S23b
  registerAggregates()  // S24a-S24h
}

/// "S0 noop": an empty measured region. Its mallocs per iteration are package-benchmark's own
/// overhead (a constant, 16 here), which `perf/table.py` subtracts from every other benchmark.
func registerCalibration() {
  register("S0", .calibration, events: 1) { benchmark in
    benchmark.startMeasurement()
    blackHole(0)
    benchmark.stopMeasurement()
  }
}
