// swift-tools-version: 6.1
import Foundation
import PackageDescription

let package = Package(
  name: "Bond",
  // Linux needs no entry. On Apple platforms, Bond's atomics and mutex come from the Synchronization
  // module (`Atomic`, `Mutex`), which starts with these releases.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Bond", targets: ["Bond"]),
    .library(name: "BondTesting", targets: ["BondTesting"]),
    // Stage metrics through swift-metrics: a product of its own, so that a user of `Bond` alone
    // compiles nothing of swift-metrics (README, "Metrics").
    .library(name: "BondMetrics", targets: ["BondMetrics"]),
  ],
  dependencies: [
    // Tests only: the Bond library itself depends on nothing but the toolchain.
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    // BondMetrics only (and its tests: MetricsTestKit).
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
  ],
  targets: [
    .target(name: "Bond"),
    .target(name: "BondTesting", dependencies: ["Bond"]),
    .target(name: "BondMetrics", dependencies: ["Bond", .product(name: "Metrics", package: "swift-metrics")]),
    .testTarget(name: "BondTests", dependencies: ["Bond", "BondTesting"]),
    .testTarget(
      name: "BondMetricsTests",
      dependencies: [
        "Bond", "BondTesting", "BondMetrics", .product(name: "MetricsTestKit", package: "swift-metrics"),
      ]
    ),
    .testTarget(
      name: "BondStressTests",
      dependencies: [
        "Bond", "BondTesting", "BondMetrics", .product(name: "MetricsTestKit", package: "swift-metrics"),
      ]
    ),
    .testTarget(
      name: "BondModelTests",
      dependencies: ["Bond", "BondTesting", .product(name: "PropertyBased", package: "swift-property-based")]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// The documentation build only (Scripts/check-docs sets BOND_DOCS): swift-docc-plugin is never a
// dependency of an ordinary build, nor of any target.
if ProcessInfo.processInfo.environment["BOND_DOCS"] != nil {
  package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
