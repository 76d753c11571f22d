import Bond
import IngestRules
import BondMetrics
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// The server as a swift-service-lifecycle `Service`: it listens until a graceful shutdown (SIGTERM),
/// then stops accepting and reading, finishes the pipeline's producer, waits for the end to reach
/// the store, and returns.
public struct IngestService: Service {
  let options: Options
  let store: any TotalsStore
  let registry: PrometheusCollectorRegistry
  let group: any EventLoopGroup
  let logger: Logger
  let prepare: (@Sendable () async throws -> Void)?

  /// A service on `group`, writing into `store`, exporting `registry` on `/metrics`; `prepare`
  /// (creating the tables) is retried in the background until it succeeds, and nothing is written
  /// before it has.
  public init(
    options: Options,
    store: any TotalsStore,
    registry: PrometheusCollectorRegistry,
    group: any EventLoopGroup,
    logger: Logger,
    prepare: (@Sendable () async throws -> Void)? = nil
  ) {
    self.options = options
    self.store = store
    self.registry = registry
    self.group = group
    self.logger = logger
    self.prepare = prepare
  }

  public func run() async throws {
    let metrics = IngestMetrics()
    let health = Health()
    let delay: Duration? = options.batchDelayMilliseconds > 0 ? .milliseconds(options.batchDelayMilliseconds) : nil
    let gateway = try options.jetstream.map { try JetStreamGateway(url: $0, logger: logger) }
    // A gateway stores nothing itself (the workers do), so it has nothing to acknowledge: `--ack`
    // is for a server that writes to its store.
    let acks = options.ack && gateway == nil ? Acknowledgements() : nil
    let writer = BatchWriter(
      store: store,
      delay: delay,
      naive: options.naive,
      logger: logger,
      health: health,
      acks: acks
    )
    let pipeline = IngestPipeline(
      lanes: options.lanes,
      laneBuffer: options.laneBuffer,
      batchMax: options.batchMax,
      batchBuffer: options.batchBuffer,
      acknowledged: acks != nil
    ) { batch in
      if let gateway { await gateway.publish(batch) } else { await writer.write(batch) }
    }
    let connections = ConnectionRegistry(maxConnections: options.maxConnections, metrics: metrics)
    let writability = pipeline.input.writability.observe { writable in
      connections.writabilityChanged(writable)
    }
    // BondMetrics: bond_stage_{delivered,dropped,pressure}_total, bond_stage_buffered and
    // bond_stage_latency_seconds, labelled `stage`, updated before each scrape.
    let stages = [
      StageMetrics(stage: "lanes", statistics: pipeline.laneStatistics),
      StageMetrics(stage: "batches", statistics: pipeline.batchStatistics),
      StageMetrics(stage: "writer", statistics: pipeline.writerStatistics),
    ]

    let store = self.store
    let registry = self.registry
    let httpServer = try await ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          try channel.pipeline.syncOperations.addHandler(
            HTTPHandler { method, uri in
              await Self.route(method, uri, store: store, registry: registry, stages: stages, health: health)
            }
          )
        }
      }
      .bind(host: options.host, port: options.httpPort).get()

    // The store's tables, in the background: both ports listen whatever the database does.
    let preparation = Task { [prepare, logger] in
      guard let prepare else {
        writer.markPrepared()
        health.set(.ready)
        return
      }
      var backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(5))
      var lastLog: ContinuousClock.Instant?
      while !Task.isCancelled {
        do {
          try await prepare()
          writer.markPrepared()
          health.set(.ready)
          if lastLog != nil { logger.info("database reachable: tables ready") }
          return
        } catch {
          health.set(.degraded)
          let now = ContinuousClock.now
          if lastLog.map({ now - $0 >= .seconds(60) }) ?? true {
            lastLog = now
            logger.error(
              "database unreachable at start; retrying (logged again in a minute if it lasts)",
              metadata: ["error": "\(describe(error))"]
            )
          }
          try? await Task.sleep(for: backoff.next())
        }
      }
    }

    let lineServer = try await ServerBootstrap(group: group)
      .serverChannelOption(.backlog, value: 256)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.allowRemoteHalfClosure, value: true)
      .childChannelInitializer { [options] channel in
        channel.eventLoop.makeCompletedFuture {
          let handler = LineHandler(
            pipeline: pipeline,
            registry: connections,
            metrics: metrics,
            maxLineLength: options.maxLineLength,
            timeouts: ConnectionTimeouts(
              idle: .seconds(Int64(options.idleTimeoutSeconds)),
              read: .seconds(Int64(options.readTimeoutSeconds))
            ),
            acks: acks
          )
          try channel.pipeline.syncOperations.addHandler(handler)
        }
      }
      .bind(host: options.host, port: options.port).get()

    logger.info(
      "listening",
      metadata: [
        "lines": "\(options.host):\(options.port)", "http": "\(options.host):\(options.httpPort)",
        "store": "\(options.jetstream.map { "jetstream \($0)" } ?? (options.memory ? "memory" : "postgresql"))",
        "naive": "\(options.naive)",
        "batch-delay-ms": "\(options.batchDelayMilliseconds)",
      ]
    )

    // Until SIGTERM (a cancellation ends the wait too).
    try? await gracefulShutdown()

    health.set(.draining)
    let shutdownStarted = ContinuousClock.now
    // Past the deadline: log what was accepted and not stored, per state, and exit 3.
    let deadline = Task { [logger, options] in
      try await Task.sleep(for: .seconds(options.shutdownTimeoutSeconds))
      let accepted = pipeline.acceptedCount.load(ordering: .relaxed)
      let handled = pipeline.writtenCount
      let deadLettered = writer.deadLetteredLines
      logger.critical(
        "shutdown deadline passed: exiting with lines accepted and not stored",
        metadata: [
          "shutdown-timeout-s": "\(options.shutdownTimeoutSeconds)",
          "accepted": "\(accepted)",
          "stored": "\(handled - deadLettered)",
          "dead-lettered": "\(deadLettered)",
          "not-stored": "\(accepted - handled)",
          "in-lanes": "\(pipeline.laneStatistics.bufferedCount)",
          "in-batches-stage": "\(pipeline.batchStatistics.bufferedCount)",
          "batches-waiting-for-writer": "\(pipeline.writerStatistics.bufferedCount)",
          "in-the-write-being-retried": "\(writer.linesInFlight)",
        ]
      )
      exit(3)
    }
    defer { deadline.cancel() }

    logger.info("shutting down: no new connections, reads stopping")
    try? await lineServer.close()
    await connections.stop()
    writability.dispose()
    let accepted = pipeline.acceptedCount.load(ordering: .relaxed)
    logger.info(
      "reads stopped; finishing the pipeline",
      metadata: ["accepted": "\(accepted)", "written-so-far": "\(pipeline.writtenCount)"]
    )
    await pipeline.finishAndDrain()
    await connections.closeAll()
    deadline.cancel()
    preparation.cancel()
    let written = pipeline.writtenCount
    let deadLettered = writer.deadLetteredLines
    logger.info(
      "pipeline drained",
      metadata: [
        "accepted": "\(accepted)", "written": "\(written)", "dead-lettered": "\(deadLettered)",
        "all-in-store": "\(accepted == written)", "seconds": "\(ContinuousClock.now - shutdownStarted)",
      ]
    )
    gateway?.close()
    try? await httpServer.close()
  }

  static func route(
    _ method: HTTPMethod,
    _ uri: String,
    store: any TotalsStore,
    registry: PrometheusCollectorRegistry,
    stages: [StageMetrics],
    health: Health
  ) async -> HTTPHandler.Response {
    guard method == .GET else { return (.methodNotAllowed, "text/plain", "GET only\n") }
    switch uri {
    case "/health":
      let report = health.report
      return (report.healthy ? .ok : .serviceUnavailable, "text/plain", report.text)
    case "/metrics":
      StageMetrics.update(stages)
      return (.ok, "text/plain; version=0.0.4", registry.emitToString())
    case "/totals":
      do {
        return (.ok, "application/json", totalsJSON(try await store.totals()))
      } catch {
        return (.serviceUnavailable, "text/plain", "store: \(String(reflecting: error))\n")
      }
    default:
      return (.notFound, "text/plain", "GET /health, /metrics or /totals\n")
    }
  }

  /// `{"keys": K, "lines": L, "total": T, "totals": {"key": {"total": t, "lines": l}, ...}}`; the keys
  /// are printable ASCII without `"` or `\` escaped.
  static func totalsJSON(_ rows: [String: StoredTotal]) -> String {
    var lines: Int64 = 0
    var total: Int64 = 0
    var entries: [String] = []
    entries.reserveCapacity(rows.count)
    for (key, row) in rows.sorted(by: { $0.key < $1.key }) {
      lines &+= row.lines
      total &+= row.total
      entries.append("\(jsonString(key)): {\"total\": \(row.total), \"lines\": \(row.lines)}")
    }
    return "{\"keys\": \(rows.count), \"lines\": \(lines), \"total\": \(total), \"totals\": {"
      + entries.joined(separator: ", ") + "}}\n"
  }

  static func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
