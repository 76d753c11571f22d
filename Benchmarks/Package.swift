// swift-tools-version: 6.1
// The Bond benchmark suite (PERFORMANCE.md): its own package, so users of Bond never build it.
// Run the whole suite with `perf/bench` from the repository root.
import PackageDescription

/// The parts of Bond's API the suite benchmarks. Each name enables one file of
/// `Benchmarks/BondBenchmarks/Bond/` (a compilation condition); a part that has not landed on
/// `main` yet stays commented out so the package keeps building, and its cells read "—".
let bondFeatures: [String] = [
  "BOND_CORE",  // EventProducer: S1 S3 S8 S9 S9b S10 (BondCore.swift)
  "BOND_MAP_FILTER",  // map, filter: S2 (BondMapFilter.swift)
  "BOND_COMBINE_LATEST",  // combineLatest(_:_:): S4 (BondCombineLatest.swift)
  "BOND_MERGE",  // merge(_:): S5 (BondMerge.swift)
  "BOND_SWITCH_TO_LATEST",  // switchToLatest(): S6 (BondSwitchToLatest.swift)
  "BOND_DELIVER_ON",  // deliverOn(_:): S7 (BondDeliverOn.swift)
  "BOND_THROTTLE",  // throttle(seconds:queue:): S11 (BondThrottle.swift)
  "BOND_OBSERVABLE_ARRAY",  // ObservableArray: S12a S12b (BondObservableArray.swift)
  "BOND_STAGES",  // partition, batches, send(contentsOf:): S13 S14 S18 (BondStages.swift)
  "BOND_VOCABULARY",  // zip, withLatestFrom, collect(count:): S15 S16 S17 (BondVocabulary.swift)
  "BOND_CONCURRENT_MAP",  // map(maxConcurrent:): S20b (BondConcurrentMap.swift)
]

let package = Package(
  name: "BondBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    // Bond, consumed exactly as a user consumes it.
    .package(name: "Bond", path: ".."),
    .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
    // HdrHistogram for the latency percentiles (package-benchmark depends on it too).
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
  ],
  targets: [
    // What several executables share: ~1 µs of CPU work, the hand-written TaskGroup window (S20).
    .target(name: "BenchWork", path: "Benchmarks/BenchWork"),
    // Default release settings only: no cross-module-optimization, no unsafe flags; Bond's hot
    // paths must specialize in this module through `@inlinable`, as they do for a user.
    .executableTarget(
      name: "BondBenchmarks",
      dependencies: [
        .product(name: "Bond", package: "Bond"),
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "OpenCombine", package: "OpenCombine"),
        .product(name: "OpenCombineDispatch", package: "OpenCombine"),
        .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
        "BenchWork",
      ],
      path: "Benchmarks/BondBenchmarks",
      swiftSettings: bondFeatures.map { .define($0) },
      plugins: [
        .plugin(name: "BenchmarkPlugin", package: "package-benchmark")
      ]
    ),
    // One scenario, one engine, N events, for valgrind's instruction counts (perf/instructions).
    .executableTarget(
      name: "BondInstructions",
      dependencies: [
        .product(name: "Bond", package: "Bond"),
        .product(name: "OpenCombine", package: "OpenCombine"),
      ],
      path: "Benchmarks/BondInstructions"
    ),
    // S7 latency: next() to the observer on a queue, p50/p99/p99.9 with HdrHistogram (perf/latency).
    .executableTarget(
      name: "BondLatency",
      dependencies: [
        .product(name: "Bond", package: "Bond"),
        .product(name: "OpenCombine", package: "OpenCombine"),
        .product(name: "OpenCombineDispatch", package: "OpenCombine"),
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ],
      path: "Benchmarks/BondLatency"
    ),
    // S19 flow control and S20 concurrency-limited stages: one case per process, so each case's
    // peak memory is its own (perf/flow).
    .executableTarget(
      name: "BondFlow",
      dependencies: [
        .product(name: "Bond", package: "Bond"),
        .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
        "BenchWork",
      ],
      path: "Benchmarks/BondFlow"
    ),
    // Scale curves: cost per event against observers, replay, chain length, arity, lanes and
    // map(maxConcurrent:) (perf/curves).
    .executableTarget(
      name: "BondCurves",
      dependencies: [
        .product(name: "Bond", package: "Bond"),
        .product(name: "OpenCombine", package: "OpenCombine"),
        "BenchWork",
      ],
      path: "Benchmarks/BondCurves"
    ),
  ],
  swiftLanguageModes: [.v6]
)
