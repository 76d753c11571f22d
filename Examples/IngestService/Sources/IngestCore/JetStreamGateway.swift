import BondJetStream
import Foundation
import Logging
import Metrics
import Synchronization

/// The gateway's sink (`ingest-server --jetstream URL`): each batch of accepted lines is published
/// to JetStream's stream `INGEST` and counts as written once the stream has stored it.
///
/// A batch's lines are grouped by lane (a stable hash of the key, `ingest.0` to `ingest.3`): one
/// message per lane, its payload the lines themselves (`key value\n`), its `Nats-Msg-Id` this
/// gateway's run and a counter. The publishes wait for their acks (``JetStreamSink``), so while
/// the stream is slow or unreachable the pipeline's sink waits, its stages fill and the sockets
/// stop being read; a publish whose ack was lost is retried and stored once.
public final class JetStreamGateway: Sendable {
  /// The stream the gateway publishes to.
  public static let stream = "INGEST"
  /// The subject lanes: `ingest.0` … `ingest.<lanes - 1>`.
  public static let subjectLanes = 4
  let connection: JetStreamConnection
  let sink: JetStreamSink
  let logger: Logger
  /// Unique per run: a message ID is this and a counter.
  let idPrefix: String
  private let nextID = Atomic<Int>(0)
  private let linesPublished = Atomic<Int>(0)
  private let publishedCounter = Counter(label: "ingest_lines_published_total")
  private let retriesCounter = Counter(label: "ingest_publish_retries_total")

  /// Connects to `url`, creates the stream `INGEST` (subjects `ingest.>`, file store) if missing.
  /// - Throws: the connection's or the stream's ``JetStreamError``.
  public init(url: String, logger: Logger) throws {
    connection = try JetStreamConnection(url: url, name: "ingest-gateway")
    try connection.ensureStream(name: Self.stream, subjects: ["ingest.>"])
    let retries = retriesCounter
    sink = JetStreamSink(connection: connection, maxInFlight: Self.subjectLanes) { error, attempt in
      retries.increment()
      if attempt == 1 || attempt % 25 == 0 {
        logger.warning("publish failed, retrying", metadata: ["error": "\(error)", "attempt": "\(attempt)"])
      }
    }
    self.logger = logger
    idPrefix = "gw-\(ProcessInfo.processInfo.processIdentifier)-\(UInt64(Date().timeIntervalSince1970 * 1e6))"
  }

  /// Lines stored in the stream so far.
  public var publishedCount: Int { linesPublished.load(ordering: .relaxed) }

  /// Publishes `batch` (one message per lane) and returns its number of lines once the stream has
  /// stored every message.
  public func publish(_ batch: [CheckedReading]) async -> Int {
    var payloads = [[UInt8]](repeating: [], count: Self.subjectLanes)
    for line in batch {
      payloads[Self.lane(of: line.key)].append(contentsOf: "\(line.key) \(line.value)\n".utf8)
    }
    let sink = self.sink
    await withTaskGroup(of: Void.self) { group in
      for (lane, payload) in payloads.enumerated() where !payload.isEmpty {
        // relaxed: a unique number, nothing else is published with it.
        let id = "\(idPrefix)-\(nextID.add(1, ordering: .relaxed).newValue)"
        group.addTask { _ = await sink.publish(subject: "ingest.\(lane)", payload: payload, messageID: id) }
      }
    }
    linesPublished.add(batch.count, ordering: .relaxed)  // relaxed: a counter for logs
    publishedCounter.increment(by: Int64(batch.count))
    return batch.count
  }

  /// The lane of `key`: FNV-1a of its bytes, the same in every process and run.
  public static func lane(of key: String) -> Int {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in key.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return Int(hash % UInt64(subjectLanes))
  }

  /// After the last publish: stops the publisher threads and closes the connection.
  public func close() {
    logger.info("jetstream: published", metadata: ["lines": "\(publishedCount)", "retries": "\(sink.retryCount)"])
    sink.shutdown()
    connection.close()
  }
}
