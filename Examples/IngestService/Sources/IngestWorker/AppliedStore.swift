import BondJetStream
import IngestCore
import Logging
import PostgresNIO

/// What one message adds to one key.
struct KeyDelta: Sendable {
  var key: String
  var total: Int64
  var lines: Int64
}

/// A message and its totals per key (its lines summed by key).
struct MessageTotals: Sendable {
  let message: JetStreamMessage
  let deltas: [KeyDelta]
  let lines: Int

  /// Parses the message's lines (`key value\n`, as the gateway wrote them) and sums them per key.
  init(_ message: JetStreamMessage) {
    var sums: [String: (total: Int64, lines: Int64)] = [:]
    var count = 0
    for line in message.payload.split(separator: UInt8(ascii: "\n")) {
      guard let reading = line.withUnsafeBytes({ LineParser.parse($0) }) else { continue }
      sums[reading.key, default: (0, 0)].total &+= reading.value
      sums[reading.key, default: (0, 0)].lines &+= 1
      count += 1
    }
    self.message = message
    self.deltas = sums.map { KeyDelta(key: $0.key, total: $0.value.total, lines: $0.value.lines) }
    self.lines = count
  }
}

/// What a batch's commit did.
struct Applied: Sendable {
  /// Messages applied now.
  var messages: Int
  /// Messages already applied (redeliveries): skipped.
  var skipped: Int
  /// Lines applied now.
  var lines: Int
}

/// Where a worker's batches go: each batch at once, each message at most once.
protocol AppliedStore: Sendable {
  /// In one transaction: records the batch's stream sequences as applied and adds the totals of
  /// the messages not applied before.
  func apply(_ batch: [MessageTotals]) async throws -> Applied
  /// Forgets the applied sequences below `sequence` (acknowledged: never delivered again).
  func prune(below sequence: UInt64) async throws
}

/// `ingest_applied (seq bigint primary key)` beside the server's `ingest_totals`: one statement per
/// batch (so one transaction) records the sequences and adds only what is new.
struct PostgresAppliedStore: AppliedStore {
  let client: PostgresClient
  let logger: Logger

  /// Creates both tables if missing (`ingest_totals` as the server does); with `reset`, empties them.
  func prepare(reset: Bool) async throws {
    try await PostgresStore(client: client, logger: logger).prepare(reset: reset)
    try await client.query("CREATE TABLE IF NOT EXISTS ingest_applied (seq bigint PRIMARY KEY)", logger: logger)
    if reset { try await client.query("TRUNCATE ingest_applied", logger: logger) }
  }

  func apply(_ everything: [MessageTotals]) async throws -> Applied {
    // A message delivered twice into one batch (its ack wait ran out while it waited here) is in
    // it once: the statement below sees only what was applied before it.
    var seen: Set<UInt64> = []
    let batch = everything.filter { seen.insert($0.message.streamSequence).inserted }
    let sequences = batch.map { Int64(bitPattern: $0.message.streamSequence) }
    var rowSequences: [Int64] = []
    var keys: [String] = []
    var totals: [Int64] = []
    var lines: [Int64] = []
    for item in batch {
      for delta in item.deltas {
        rowSequences.append(Int64(bitPattern: item.message.streamSequence))
        keys.append(delta.key)
        totals.append(delta.total)
        lines.append(delta.lines)
      }
    }
    // The applied sequences first (a concurrent worker with the same redelivered message waits on
    // its row, then skips it), then the new messages' rows per key, in key order (two workers'
    // upserts take their row locks in the same order).
    let rows = try await client.query(
      """
      WITH new AS (
        INSERT INTO ingest_applied (seq) SELECT unnest(\(sequences)::bigint[])
        ON CONFLICT DO NOTHING RETURNING seq),
      batch AS (
        SELECT * FROM unnest(\(rowSequences)::bigint[], \(keys)::text[], \(totals)::bigint[], \(lines)::bigint[])
          AS b(seq, key, total, lines)),
      added AS (
        INSERT INTO ingest_totals AS t (key, total, lines)
        SELECT key, sum(total)::bigint, sum(lines)::bigint FROM batch WHERE seq IN (SELECT seq FROM new)
        GROUP BY key ORDER BY key
        ON CONFLICT (key) DO UPDATE SET total = t.total + EXCLUDED.total, lines = t.lines + EXCLUDED.lines
        RETURNING 1)
      SELECT seq FROM new
      """,
      logger: logger
    )
    // `added` runs to completion whether or not the SELECT reads it (PostgreSQL's rule for a
    // data-modifying WITH).
    var new: Set<UInt64> = []
    for try await sequence in rows.decode(Int64.self) { new.insert(UInt64(bitPattern: sequence)) }
    var result = Applied(messages: 0, skipped: everything.count - batch.count, lines: 0)
    for item in batch {
      if new.contains(item.message.streamSequence) {
        result.messages += 1
        result.lines += item.lines
      } else {
        result.skipped += 1
      }
    }
    return result
  }

  func prune(below sequence: UInt64) async throws {
    try await client.query("DELETE FROM ingest_applied WHERE seq < \(Int64(bitPattern: sequence))", logger: logger)
  }
}

/// In memory (`--memory`), for measuring: the applied sequences and the totals of this process.
actor MemoryAppliedStore: AppliedStore {
  private var applied: Set<UInt64> = []
  private var totals: [String: (total: Int64, lines: Int64)] = [:]

  func apply(_ batch: [MessageTotals]) async throws -> Applied {
    var result = Applied(messages: 0, skipped: 0, lines: 0)
    for item in batch {
      guard applied.insert(item.message.streamSequence).inserted else {
        result.skipped += 1
        continue
      }
      result.messages += 1
      result.lines += item.lines
      for delta in item.deltas {
        totals[delta.key, default: (0, 0)].total &+= delta.total
        totals[delta.key, default: (0, 0)].lines &+= delta.lines
      }
    }
    return result
  }

  func prune(below sequence: UInt64) async throws {
    applied = applied.filter { $0 >= sequence }
  }
}
