import Bond
import BondJetStream
import Dispatch
import Foundation
import IngestCore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

// ingest-worker: applies the gateway's lines from JetStream to PostgreSQL, each message once
// (see README.md, "Beyond one machine").
//
//   JetStreamSource ─▶ partition(lanes, .backpressure) by subject ─▶ lane: totals per key per message
//     ─▶ merge ─▶ batches(.backpressure) ─▶ map(maxConcurrent: 1) { one transaction; then ack each }

let usage = """
  usage: ingest-worker [options]

    --jetstream URL        the NATS server (nats://127.0.0.1:4222)
    --durable NAME         the shared durable consumer (workers)
    --ack-wait-s N         the consumer's ack_wait: a message unacknowledged this long is delivered
                           again, to any worker (30)
    --max-ack-pending N    the consumer's max_ack_pending: messages delivered and unacknowledged,
                           all workers together (256)
    --fetch N              messages per fetch (16)
    --lanes N              the partition's lanes (4)
    --batch-max N          messages per transaction at most (64)
    --batch-delay-ms N     a delay per batch, in milliseconds: a slow sink (0)
    --memory               an in-memory store of this process instead of PostgreSQL (measuring)
    --pg-host H, --pg-port P, --pg-user U, --pg-password W, --pg-database D
                           PostgreSQL (127.0.0.1, 5432, postgres, $PGPASSWORD, postgres)
    --reset                empty ingest_totals and ingest_applied at start
    --name NAME            this worker's name in the logs (worker-<pid>)
    --progress-ms N        log the counts every N ms (0: only at the end)
  """

struct WorkerOptions: Sendable {
  var url = "nats://127.0.0.1:4222"
  var durable = "workers"
  var ackWaitSeconds = 30
  var maxAckPending = 256
  var fetch = 16
  var lanes = 4
  var batchMax = 64
  var batchDelayMilliseconds = 0
  var memory = false
  var pgHost = "127.0.0.1"
  var pgPort = 5432
  var pgUser = "postgres"
  var pgPassword: String? = ProcessInfo.processInfo.environment["PGPASSWORD"]
  var pgDatabase = "postgres"
  var reset = false
  var name = "worker-\(ProcessInfo.processInfo.processIdentifier)"
  var progressMilliseconds = 0

  static func parse(_ arguments: [String]) -> WorkerOptions {
    var options = WorkerOptions()
    var rest = arguments[...]
    func fail(_ message: String) -> Never {
      FileHandle.standardError.write(Data("ingest-worker: \(message)\n\(usage)\n".utf8))
      exit(2)
    }
    func text(_ name: String) -> String {
      guard let value = rest.popFirst() else { fail("\(name) needs a value") }
      return value
    }
    func int(_ name: String) -> Int {
      guard let value = Int(text(name)), value >= 0 else { fail("\(name) needs a whole number") }
      return value
    }
    while let argument = rest.popFirst() {
      switch argument {
      case "--jetstream": options.url = text(argument)
      case "--durable": options.durable = text(argument)
      case "--ack-wait-s": options.ackWaitSeconds = max(1, int(argument))
      case "--max-ack-pending": options.maxAckPending = max(1, int(argument))
      case "--fetch": options.fetch = max(1, int(argument))
      case "--lanes": options.lanes = max(1, int(argument))
      case "--batch-max": options.batchMax = max(1, int(argument))
      case "--batch-delay-ms": options.batchDelayMilliseconds = int(argument)
      case "--memory": options.memory = true
      case "--pg-host": options.pgHost = text(argument)
      case "--pg-port": options.pgPort = int(argument)
      case "--pg-user": options.pgUser = text(argument)
      case "--pg-password": options.pgPassword = text(argument)
      case "--pg-database": options.pgDatabase = text(argument)
      case "--reset": options.reset = true
      case "--name": options.name = text(argument)
      case "--progress-ms": options.progressMilliseconds = int(argument)
      case "--help", "-h":
        print(usage)
        exit(0)
      default: fail("unknown option \(argument)")
      }
    }
    return options
  }
}

/// Runs `work` on a thread of its own (the C client's calls block) and returns its result.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try work() }) }.start()
  }
}

/// Counters for the logs (relaxed: nothing else is published through them).
final class WorkerCounts: Sendable {
  let messages = Atomic<Int>(0)
  let skipped = Atomic<Int>(0)
  let lines = Atomic<Int>(0)
  let batches = Atomic<Int>(0)
  let retries = Atomic<Int>(0)

  func add(_ applied: Applied) {
    messages.add(applied.messages, ordering: .relaxed)
    skipped.add(applied.skipped, ordering: .relaxed)
    lines.add(applied.lines, ordering: .relaxed)
    batches.add(1, ordering: .relaxed)
  }

  var metadata: Logger.Metadata {
    [
      "messages": "\(messages.load(ordering: .relaxed))", "lines": "\(lines.load(ordering: .relaxed))",
      "redelivered-skipped": "\(skipped.load(ordering: .relaxed))",
      "batches": "\(batches.load(ordering: .relaxed))", "store-retries": "\(retries.load(ordering: .relaxed))",
    ]
  }
}

/// The worker as a swift-service-lifecycle `Service`: fetches and applies until SIGTERM, then stops
/// fetching, lets the pipeline drain (the last batch committed and acknowledged), and returns.
struct Worker: Service {
  let options: WorkerOptions
  let store: any AppliedStore
  let logger: Logger

  func run() async throws {
    let options = self.options
    let logger = self.logger
    let connection = try await onThread { try JetStreamConnection(url: options.url, name: options.name) }
    try await onThread { try connection.ensureStream(name: JetStreamGateway.stream, subjects: ["ingest.>"]) }
    let source = try await onThread {
      try JetStreamSource(
        connection: connection,
        stream: JetStreamGateway.stream,
        durable: options.durable,
        ackWait: .seconds(options.ackWaitSeconds),
        maxAckPending: options.maxAckPending,
        fetchBatch: options.fetch
      ) { error in logger.warning("fetch failed, retrying", metadata: ["error": "\(error)"]) }
    }
    let counts = WorkerCounts()
    let store = self.store
    let delay: Duration? = options.batchDelayMilliseconds > 0 ? .milliseconds(options.batchDelayMilliseconds) : nil
    let partition = source.messages.partition(lanes: options.lanes, bufferLimit: 16, whenFull: .backpressure) {
      $0.subject
    }
    let totals = partition.lanes.map { lane in lane.map { MessageTotals($0) } }
    let (ended, end) = AsyncStream<Void>.makeStream()
    let subscription = merge(totals)
      .batches(
        on: DispatchQueue(label: "ingest.worker.batches"),
        maxCount: options.batchMax,
        bufferLimit: 2 * options.batchMax,
        whenFull: .backpressure
      )
      .map(maxConcurrent: 1, bufferLimit: 2) { batch in
        // One transaction, retried every second until it commits; then the acks.
        while true {
          do {
            counts.add(try await store.apply(batch))
            break
          } catch {
            counts.retries.add(1, ordering: .relaxed)
            logger.error("commit failed, retrying in 1 s", metadata: ["error": "\(String(reflecting: error))"])
            try? await Task.sleep(for: .seconds(1))
          }
        }
        if let delay { try? await Task.sleep(for: delay) }
        for item in batch { item.message.ack() }
        return batch.count
      }
      .observe { _ in
      } finished: {
        end.finish()
      }
    source.start()
    logger.info(
      "fetching",
      metadata: [
        "jetstream": "\(options.url)", "durable": "\(options.durable)", "ack-wait-s": "\(options.ackWaitSeconds)",
        "max-ack-pending": "\(options.maxAckPending)", "store": "\(options.memory ? "memory" : "postgresql")",
      ]
    )

    // Prunes ingest_applied below the ack floor every 2 s: those messages are never delivered again.
    let pruning = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(2))
        guard
          let state = try? await onThread({
            try connection.consumerState(stream: JetStreamGateway.stream, durable: options.durable)
          })
        else { continue }
        try? await store.prune(below: state.acknowledgedBelow)
      }
    }

    let progress = Task {
      guard options.progressMilliseconds > 0 else { return }
      while !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(options.progressMilliseconds))
        logger.info("progress", metadata: counts.metadata)
      }
    }

    try? await gracefulShutdown()
    progress.cancel()
    logger.info("stopping: no more fetches, draining", metadata: counts.metadata)
    source.stop()
    for await _ in ended {}
    pruning.cancel()
    await pruning.value  // its consumer-info call must end before the connection closes
    subscription.dispose()
    source.close()
    connection.close()  // flushes the last acks
    var metadata = counts.metadata
    metadata["fetched"] = "\(source.fetchedCount)"
    logger.info("worker drained", metadata: metadata)
  }
}

LoggingSystem.bootstrap { label in
  var handler = StreamLogHandler.standardError(label: label)
  handler.logLevel = .info
  return handler
}
let options = WorkerOptions.parse(Array(CommandLine.arguments.dropFirst()))
let logger = Logger(label: options.name)
var services: [any Service] = []
let store: any AppliedStore
if options.memory {
  store = MemoryAppliedStore()
} else {
  let client = PostgresClient(
    configuration: .init(
      host: options.pgHost,
      port: options.pgPort,
      username: options.pgUser,
      password: options.pgPassword,
      database: options.pgDatabase,
      tls: .disable
    ),
    backgroundLogger: logger
  )
  services.append(client)
  store = PostgresAppliedStore(client: client, logger: logger)
}

/// Prepares the tables once the client runs, then runs the worker.
struct Prepared: Service {
  let worker: Worker
  let reset: Bool

  func run() async throws {
    if let postgres = worker.store as? PostgresAppliedStore {
      // PostgreSQL may be restarting: the tables are made when it answers.
      while true {
        do {
          try await postgres.prepare(reset: reset)
          break
        } catch {
          worker.logger.warning("PostgreSQL not ready, retrying", metadata: ["error": "\(String(reflecting: error))"])
          try await Task.sleep(for: .seconds(1))
        }
      }
    }
    try await worker.run()
  }
}

services.append(Prepared(worker: Worker(options: options, store: store, logger: logger), reset: options.reset))
await runServicesAndExit(services, logger: logger)
