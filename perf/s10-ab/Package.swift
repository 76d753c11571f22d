// swift-tools-version:6.0
// S10's Bond loop (Benchmarks/Benchmarks/BondBenchmarks/Send.swift) as a stand-alone executable,
// built against the Bond checkout in BOND_PATH: `perf/s10-ab/run` builds it once per revision and
// alternates the runs (a same-run A/B of contended sends across revisions).
import Foundation
import PackageDescription

let bond =
  ProcessInfo.processInfo.environment["BOND_PATH"]
  ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
let package = Package(
  name: "S10",
  dependencies: [.package(path: bond)],
  targets: [
    .executableTarget(
      name: "S10",
      dependencies: [.product(name: "Bond", package: URL(fileURLWithPath: bond).standardized.lastPathComponent)]
    )
  ]
)
