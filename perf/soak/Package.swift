// swift-tools-version: 6.1
// The soak run: millions of events and subscribe/dispose cycles across 2 threads through a mixed
// operator graph, with the process's allocated bytes read from jemalloc. Run it with `perf/soak/run`.
import PackageDescription

let package = Package(
  name: "BondSoak",
  dependencies: [.package(name: "Bond", path: "../..")],
  targets: [
    // jemalloc's statistics (Debian's libjemalloc-dev); linking it makes it the process's allocator.
    .systemLibrary(name: "CJemalloc", path: "Sources/CJemalloc"),
    .executableTarget(
      name: "BondSoak",
      dependencies: [.product(name: "Bond", package: "Bond"), "CJemalloc"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
