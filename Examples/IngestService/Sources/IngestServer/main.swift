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
  var configuration = PostgresClient.Configuration(
    host: options.pgHost,
    port: options.pgPort,
    username: options.pgUser,
    password: options.pgPassword,
    database: options.pgDatabase,
    tls: options.pgTLS.configuration
  )
  // A silent database: the server ends a statement past the query timeout (statement_timeout,
  // SQLSTATE 57014, retried), probes its side of an idle connection (tcp_keepalives_*: the
  // postgres-nio client exposes no socket option for ours), and the pool checks idle connections
  // with a query every 10 s; the store's own deadline covers the rest.
  configuration.options.connectTimeout = .seconds(options.pgQueryTimeoutSeconds)
  configuration.options.keepAliveBehavior = .init(frequency: .seconds(10))
  configuration.options.additionalStartupParameters = [
    ("statement_timeout", "\(options.pgQueryTimeoutSeconds * 1000)"),
    ("tcp_keepalives_idle", "10"), ("tcp_keepalives_interval", "5"), ("tcp_keepalives_count", "3"),
  ]
  let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
  let postgres = PostgresStore(client: client, logger: logger, queryTimeout: .seconds(options.pgQueryTimeoutSeconds))
  services.append(client)
  store = postgres
}

// The tables are prepared in the background by the service (retried while the database is down).
var prepare: (@Sendable () async throws -> Void)? = nil
if let postgres = store as? PostgresStore {
  let reset = options.reset
  prepare = { try await postgres.prepare(reset: reset) }
}
let service = IngestService(
  options: options,
  store: store,
  registry: registry,
  group: group,
  logger: logger,
  prepare: prepare
)
services.append(service)
await runServicesAndExit(services, logger: logger)
