// swift-tools-version: 6.1
import Foundation
import PackageDescription

let package = Package(
  name: "Bond",
  products: [
    .library(name: "Bond", targets: ["Bond"]),
    .library(name: "BondTesting", targets: ["BondTesting"]),
  ],
  dependencies: [
    // Tests only: the Bond library itself depends on nothing but the toolchain.
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1")
  ],
  targets: [
    .target(name: "Bond"),
    .target(name: "BondTesting", dependencies: ["Bond"]),
    .testTarget(name: "BondTests", dependencies: ["Bond", "BondTesting"]),
    .testTarget(name: "BondStressTests", dependencies: ["Bond", "BondTesting"]),
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
