// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Bond",
  products: [
    .library(name: "Bond", targets: ["Bond"]),
    .library(name: "BondTesting", targets: ["BondTesting"]),
  ],
  targets: [
    .target(name: "Bond"),
    .target(name: "BondTesting", dependencies: ["Bond"]),
    .testTarget(name: "BondTests", dependencies: ["Bond", "BondTesting"]),
    .testTarget(name: "BondStressTests", dependencies: ["Bond", "BondTesting"]),
  ],
  swiftLanguageModes: [.v6]
)
