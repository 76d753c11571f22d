// swift-tools-version: 6.1
import PackageDescription

// The ingest example: a TCP line-protocol server feeding one Bond pipeline into PostgreSQL, with
// flow control from the pipeline back to the sockets, Prometheus metrics and a draining shutdown.
// Its own package, so that a user of Bond compiles none of these dependencies.
let package = Package(
  name: "IngestService",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "ingest-server", targets: ["IngestServer"]),
    .executable(name: "ingest-load", targets: ["IngestLoad"]),
    .executable(name: "ingest-worker", targets: ["IngestWorker"]),
    // A thin Swift layer over the NATS C client: a JetStream publisher and a durable pull consumer
    // as Bond producers, for users to take.
    .library(name: "BondJetStream", targets: ["BondJetStream"]),
  ],
  dependencies: [
    .package(name: "Bond", path: "../.."),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    // TLS to PostgreSQL (`--pg-tls`); postgres-nio depends on it already.
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
  ],
  targets: [
    // The rules without I/O (value range, checked sums, error classes, backoff, batch ids): no
    // dependency, so that its tests build in seconds.
    .target(name: "IngestRules"),
    .testTarget(name: "IngestRulesTests", dependencies: ["IngestRules"]),
    .target(
      name: "IngestCore",
      dependencies: [
        "IngestRules",
        .product(name: "Bond", package: "Bond"),
        .product(name: "BondMetrics", package: "Bond"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOExtras", package: "swift-nio-extras"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        "BondJetStream",
      ]
    ),
    .executableTarget(name: "IngestServer", dependencies: ["IngestCore"]),
    // The official NATS C client (Debian's libnats-dev), the only way to NATS from this package.
    .systemLibrary(name: "CNATS", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),
    .target(name: "BondJetStream", dependencies: [.product(name: "Bond", package: "Bond"), "CNATS"]),
    .executableTarget(
      name: "IngestWorker",
      dependencies: [
        "IngestCore", "BondJetStream",
        .product(name: "Bond", package: "Bond"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "IngestLoad",
      dependencies: [
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
