// swift-tools-version: 6.1
// The Bond benchmark suite (perf/README.md; scenarios in perf/scenarios.json): its own package, so users of Bond never build it.
// Run the whole suite with `perf/bench` from the repository root.
import PackageDescription

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
      plugins: [
        .plugin(name: "BenchmarkPlugin", package: "package-benchmark")
      ]
    ),
    // One scenario, one engine, N events, for valgrind's instruction counts (perf/instructions).
    .executableTarget(
      name: "BondInstructions",
      dependencies: [
        .product(name: "Bond", package: "Bond"),
        "BenchWork",
        .product(name: "OpenCombine", package: "OpenCombine"),
      ],
      path: "Benchmarks/BondInstructions"
    ),
    // S7 latency: next() to the observer on a queue, p50/p99/p99.9 with HdrHistogram (perf/latency).
    // Issue 23, item 4: one atomic pair, two nested pairs and Bond's multi-source operators,
    // timed interleaved in one process.
    .executableTarget(
      name: "BondTwoPairs",
      dependencies: [
        .product(name: "Bond", package: "Bond"),
        "BenchWork",
      ],
      path: "Benchmarks/BondTwoPairs"
    ),
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
