// Entry point of the suite: package-benchmark's `BenchmarkPlugin` calls `benchmarks`.
//
// Engines: Bond (Bond/*.swift, each file behind the compilation condition named in
// Benchmarks/Package.swift), the peers OpenCombine and swift-async-algorithms, and the
// baselines `closure` and `naive`. Run everything with `perf/bench` from the repository root.

import Benchmark

let benchmarks: @Sendable () -> Void = {
  registerCalibration()
  registerBond()
  registerOpenCombine()
  registerAsyncAlgorithms()
  registerBaselines()
  registerOpenCombineStages()
  registerStagesBaselines()
  registerGroupBy()
  registerTimeout()
  registerAggregates()
}

/// Every Bond benchmark; each file registers nothing while its feature is not enabled.
func registerBond() {
  registerBondCore()  // S1 S3 S8 S9 S9b S10
  registerBondMapFilter()  // S2
  registerBondCombineLatest()  // S4
  registerBondMerge()  // S5
  registerBondSwitchToLatest()  // S6
  registerBondDeliverOn()  // S7
  registerBondThrottle()  // S11
  registerBondObservableArray()  // S12a S12b
  registerBondStages()  // S13a S13b S14a S14b S18a S18b
  registerBondVocabulary()  // S15 S16 S17
  registerBondConcurrentMap()  // S20b
}

/// "S0 noop": an empty measured region. Its mallocs per iteration are package-benchmark's own
/// overhead (a constant, 16 here), which `perf/table.py` subtracts from every other benchmark.
func registerCalibration() {
  register(Scenario(id: "S0", name: "noop"), .calibration, events: 1) { benchmark in
    benchmark.startMeasurement()
    blackHole(0)
    benchmark.stopMeasurement()
  }
}
