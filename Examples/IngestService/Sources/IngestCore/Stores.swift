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

/// Where the batches go: PostgreSQL or memory.
public protocol TotalsStore: Sendable {
  /// Adds every delta to its key's row (creating it), in one statement; the keys are distinct.
  func add(_ deltas: [Delta]) async throws
  /// Every key's row.
  func totals() async throws -> [String: StoredTotal]
}

/// The in-memory store (`--memory`): a dictionary behind an actor.
public actor MemoryStore: TotalsStore {
  private var rows: [String: StoredTotal] = [:]

  /// An empty store.
  public init() {}

  /// Adds the deltas.
  public func add(_ deltas: [Delta]) async throws {
    for delta in deltas {
      var row = rows[delta.key, default: StoredTotal(total: 0, lines: 0)]
      row.total &+= delta.total
      row.lines &+= delta.lines
      rows[delta.key] = row
    }
  }

  /// Every key's row.
  public func totals() async throws -> [String: StoredTotal] { rows }
}

/// The PostgreSQL store: table `ingest_totals (key text primary key, total bigint, lines bigint)`,
/// one multi-row upsert per batch (`unnest` of three array parameters).
public struct PostgresStore: TotalsStore {
  let client: PostgresClient
  let logger: Logger

  /// A store on `client` (which must be running).
  public init(client: PostgresClient, logger: Logger) {
    self.client = client
    self.logger = logger
  }

  /// Creates the table if missing; with `reset`, empties it.
  public func prepare(reset: Bool) async throws {
    try await client.query(
      """
      CREATE TABLE IF NOT EXISTS ingest_totals (
        key text PRIMARY KEY, total bigint NOT NULL, lines bigint NOT NULL)
      """,
      logger: logger
    )
    if reset { try await client.query("TRUNCATE ingest_totals", logger: logger) }
  }

  /// One statement for the whole batch.
  public func add(_ deltas: [Delta]) async throws {
    guard !deltas.isEmpty else { return }
    let keys = deltas.map(\.key)
    let totals = deltas.map(\.total)
    let lines = deltas.map(\.lines)
    try await client.query(
      """
      INSERT INTO ingest_totals AS t (key, total, lines)
      SELECT * FROM unnest(\(keys)::text[], \(totals)::bigint[], \(lines)::bigint[])
      ON CONFLICT (key) DO UPDATE SET total = t.total + EXCLUDED.total, lines = t.lines + EXCLUDED.lines
      """,
      logger: logger
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
