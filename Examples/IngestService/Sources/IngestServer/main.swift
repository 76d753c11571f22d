import Foundation
import IngestCore
import Logging
import Metrics
import NIOPosix
import PostgresNIO
import Prometheus
import ServiceLifecycle

// ingest-server: the line-protocol server of the Bond ingest example (see README.md).
LoggingSystem.bootstrap { label in
  var handler = StreamLogHandler.standardError(label: label)
  handler.logLevel = .info
  return handler
}
let logger = Logger(label: "ingest")
let options: Options
switch Options.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
case .success(let parsed) where parsed.help:
  print(Options.usage)
  exit(0)
case .success(let parsed): options = parsed
case .failure(let error):
  FileHandle.standardError.write(Data("ingest-server: \(error.message)\n\(Options.usage)\n".utf8))
  exit(2)
}

let registry = PrometheusCollectorRegistry()
MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)

var services: [any Service] = []
let store: any TotalsStore
if options.memory || options.jetstream != nil {  // the gateway has no store of its own
  store = MemoryStore()
} else {
  let client = PostgresClient(
    configuration: .init(
      host: options.pgHost,
      port: options.pgPort,
      username: options.pgUser,
      password: options.pgPassword,
      database: options.pgDatabase,
      tls: options.pgTLS.configuration
    ),
    backgroundLogger: logger
  )
  let postgres = PostgresStore(client: client, logger: logger)
  services.append(client)
  store = postgres
}

/// Prepares the table once the client runs, then runs the ingest service.
struct Prepared: Service {
  let service: IngestService
  let store: any TotalsStore
  let reset: Bool

  func run() async throws {
    if let postgres = store as? PostgresStore { try await postgres.prepare(reset: reset) }
    try await service.run()
  }
}

let service = IngestService(options: options, store: store, registry: registry, group: group, logger: logger)
services.append(Prepared(service: service, store: store, reset: options.reset))
let serviceGroup = ServiceGroup(
  configuration: .init(
    services: services.map { .init(service: $0) },
    gracefulShutdownSignals: [.sigterm, .sigint],
    logger: logger
  )
)
do {
  try await serviceGroup.run()
  logger.info("stopped")
  exit(0)
} catch {
  logger.error("failed", metadata: ["error": "\(String(reflecting: error))"])
  exit(1)
}
