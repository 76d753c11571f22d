import IngestRules
import Logging
import NIOSSL
import PostgresNIO

/// What a batch adds to one key: the store adds it to the key's row.
public struct Delta: Sendable {
  /// The key.
  public var key: String
  /// Added to the key's total.
  public var total: Int64
  /// Added to the key's line count.
  public var lines: Int64
}

/// A key's row in a store.
public struct StoredTotal: Sendable {
  /// The key's total.
  public var total: Int64
  /// The key's line count.
  public var lines: Int64
}

/// A key's refused data, kept in the dead letters: a reading that would have overflowed its key's
/// running total, or a delta the store refused with a data error.
public struct DeadLetter: Sendable {
  /// The key.
  public var key: String
  /// The refused total (one reading's value, or a delta's total).
  public var total: Int64
  /// The lines it stands for.
  public var lines: Int64
  /// Why: `sum-overflow`, or the store's SQLSTATE and message.
  public var reason: String

  /// A dead letter.
  public init(key: String, total: Int64, lines: Int64, reason: String) {
    self.key = key
    self.total = total
    self.lines = lines
    self.reason = reason
  }
}

/// Where the batches go: PostgreSQL or memory.
public protocol TotalsStore: Sendable {
  /// Adds every delta to its key's row (creating it), in one transaction with the record of
  /// `batch`; a batch already recorded adds nothing (a retry after a lost commit reply). The keys
  /// are distinct.
  func add(_ deltas: [Delta], batch: BatchID) async throws
  /// Records refused data under `batch` (once, however often it is retried).
  func deadLetter(_ letters: [DeadLetter], batch: BatchID) async throws
  /// Every key's row.
  func totals() async throws -> [String: StoredTotal]
}

/// The memory store's data error: a key's total would leave `Int64` (PostgreSQL answers 22003).
public struct StoreDataError: Error, Sendable {
  /// The key.
  public var key: String
}

/// The in-memory store (`--memory`): a dictionary behind an actor.
///
/// The batch ids it has applied are kept as one number per writer, the highest sequence applied:
/// a writer takes its ids in increasing order and retries an id until it succeeds or is refused,
/// never going back to an earlier one, so an id at or below that number is one already applied (or
/// refused and replaced by later ids). A set of every id would grow with every batch for as long
/// as the server runs.
public actor MemoryStore: TotalsStore {
  private var rows: [String: StoredTotal] = [:]
  private var applied: [String: Int64] = [:]
  /// The dead letters recorded.
  public private(set) var deadLetters: [DeadLetter] = []

  /// An empty store.
  public init() {}

  private func isApplied(_ batch: BatchID) -> Bool { batch.sequence <= applied[batch.writer] ?? 0 }

  private func record(_ batch: BatchID) { applied[batch.writer] = max(applied[batch.writer] ?? 0, batch.sequence) }

  /// Adds the deltas (all or none: a total that would leave `Int64` throws `StoreDataError`).
  public func add(_ deltas: [Delta], batch: BatchID) async throws {
    guard !isApplied(batch) else { return }
    var updated: [(String, StoredTotal)] = []
    updated.reserveCapacity(deltas.count)
    for delta in deltas {
      var row = rows[delta.key, default: StoredTotal(total: 0, lines: 0)]
      let (total, overflow) = row.total.addingReportingOverflow(delta.total)
      guard !overflow else { throw StoreDataError(key: delta.key) }
      row.total = total
      row.lines &+= delta.lines
      updated.append((delta.key, row))
    }
    for (key, row) in updated { rows[key] = row }
    record(batch)
  }

  /// Records the dead letters.
  public func deadLetter(_ letters: [DeadLetter], batch: BatchID) async throws {
    guard !isApplied(batch) else { return }
    deadLetters += letters
    record(batch)
  }

  /// Every key's row.
  public func totals() async throws -> [String: StoredTotal] { rows }
}

/// The PostgreSQL store: table `ingest_totals (key text primary key, total bigint, lines bigint)`,
/// one multi-row upsert per batch (`unnest` of three array parameters), in one statement with the
/// insert of the batch's id into `ingest_batches` (the upsert applies only if that id is new);
/// the same statement deletes the writer's older ids, so the table holds one row per writer: a
/// writer writes one batch at a time and retries it until it commits, so once it writes a newer id,
/// no older one is ever retried;
/// refused data goes to `ingest_dead_letters`. Every statement has a deadline: past it the
/// connection is closed (the statement fails and is retried: a retry of a batch that did commit is
/// a no-op).
public struct PostgresStore: TotalsStore {
  let client: PostgresClient
  let logger: Logger
  let queryTimeout: Duration

  /// A store on `client` (which must be running); a statement not answered within `queryTimeout`
  /// fails.
  public init(client: PostgresClient, logger: Logger, queryTimeout: Duration = .seconds(10)) {
    self.client = client
    self.logger = logger
    self.queryTimeout = queryTimeout
  }

  /// Runs `query` on a leased connection within the deadline (the lease's wait included); past it
  /// the connection is closed, which fails the query.
  func run(_ query: PostgresQuery) async throws {
    let logger = self.logger
    try await withDeadline(queryTimeout) { [client] in
      try await client.withConnection { connection in
        try await withTaskCancellationHandler {
          _ = try await connection.query(query, logger: logger)
        } onCancel: {
          connection.close().whenComplete { _ in }
        }
      }
    }
  }

  /// Creates the table if missing; with `reset`, empties it.
  public func prepare(reset: Bool) async throws {
    try await run(
      """
      CREATE TABLE IF NOT EXISTS ingest_totals (
        key text PRIMARY KEY, total bigint NOT NULL, lines bigint NOT NULL)
      """
    )
    try await run(
      """
      CREATE TABLE IF NOT EXISTS ingest_batches (
        writer text NOT NULL, seq bigint NOT NULL, at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (writer, seq))
      """
    )
    try await run(
      """
      CREATE TABLE IF NOT EXISTS ingest_dead_letters (
        writer text NOT NULL, seq bigint NOT NULL, n int NOT NULL, key text NOT NULL, total bigint NOT NULL,
        lines bigint NOT NULL, reason text NOT NULL, at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (writer, seq, n))
      """
    )
    if reset { try await run("TRUNCATE ingest_totals, ingest_batches, ingest_dead_letters") }
  }

  /// One statement for the whole batch and its id.
  public func add(_ deltas: [Delta], batch: BatchID) async throws {
    guard !deltas.isEmpty else { return }
    let keys = deltas.map(\.key)
    let totals = deltas.map(\.total)
    let lines = deltas.map(\.lines)
    try await run(
      """
      WITH batch AS (
        INSERT INTO ingest_batches (writer, seq) VALUES (\(batch.writer), \(batch.sequence))
        ON CONFLICT DO NOTHING RETURNING 1),
      pruned AS (
        DELETE FROM ingest_batches WHERE writer = \(batch.writer) AND seq < \(batch.sequence))
      INSERT INTO ingest_totals AS t (key, total, lines)
      SELECT u.key, u.total, u.lines FROM unnest(\(keys)::text[], \(totals)::bigint[], \(lines)::bigint[])
        AS u(key, total, lines)
      WHERE EXISTS (SELECT 1 FROM batch)
      ON CONFLICT (key) DO UPDATE SET total = t.total + EXCLUDED.total, lines = t.lines + EXCLUDED.lines
      """
    )
  }

  /// One statement for the letters and their id.
  public func deadLetter(_ letters: [DeadLetter], batch: BatchID) async throws {
    guard !letters.isEmpty else { return }
    let numbers = (0..<letters.count).map { Int32($0) }
    let keys = letters.map(\.key)
    let totals = letters.map(\.total)
    let lines = letters.map(\.lines)
    let reasons = letters.map(\.reason)
    try await run(
      """
      INSERT INTO ingest_dead_letters (writer, seq, n, key, total, lines, reason)
      SELECT \(batch.writer), \(batch.sequence), u.* FROM unnest(\(numbers)::int[], \(keys)::text[],
        \(totals)::bigint[], \(lines)::bigint[], \(reasons)::text[]) AS u
      ON CONFLICT DO NOTHING
      """
    )
  }

  /// `SELECT key, total, lines FROM ingest_totals`.
  public func totals() async throws -> [String: StoredTotal] {
    var result: [String: StoredTotal] = [:]
    let rows = try await client.query("SELECT key, total, lines FROM ingest_totals", logger: logger)
    for try await (key, total, lines) in rows.decode((String, Int64, Int64).self) {
      result[key] = StoredTotal(total: total, lines: lines)
    }
    return result
  }
}

extension PostgresTLSMode {
  /// The client's TLS setting for this mode: certificates are verified against the system's trust
  /// roots (`TLSConfiguration.makeClientConfiguration()`).
  public var configuration: PostgresClient.Configuration.TLS {
    switch self {
    case .disable: return .disable
    case .prefer: return .prefer(TLSConfiguration.makeClientConfiguration())
    case .require: return .require(TLSConfiguration.makeClientConfiguration())
    }
  }
}
