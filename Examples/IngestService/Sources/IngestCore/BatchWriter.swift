import IngestRules
import Logging
import Metrics
import Synchronization

/// The sink's async writer: sums a batch's accepted readings into one delta per key and awaits the
/// store (a suspended task while the database works, never a blocked thread).
///
/// - Each write carries a `BatchID` (this writer's random id and a sequence number) that the store
///   records in the same transaction: a retry of a write whose commit reply was lost is a no-op.
/// - A retryable error (connection, timeout, serialization, server shutting down) is retried with
///   capped exponential backoff (100 ms doubling to 5 s), the same id each time: nothing is dropped.
/// - A data error (SQLSTATE class 22 or 23) is never retried as is: the write is split in halves
///   until the offending keys are alone; their deltas go to the dead letters (counted in
///   `ingest_dead_letter_lines_total`), the rest is written. A reading that would have overflowed
///   its key's running total (refused by the lane) goes there too.
///
/// `delay` slows every batch down (`--batch-delay-ms`, the slow consumer); `naive` writes one
/// statement per line instead, for comparison.
public actor BatchWriter {
  let store: any TotalsStore
  let delay: Duration?
  let naive: Bool
  let logger: Logger
  let health: Health
  let acks: Acknowledgements?
  private var ids: BatchSequence
  private var lastErrorLog: ContinuousClock.Instant?
  private let prepared = Completion()
  private var isPrepared = false
  private let inFlight = Atomic<Int>(0)
  private let deadLettered = Atomic<Int>(0)
  private let batchesWritten = Counter(label: "ingest_batches_written_total")
  private let rowsWritten = Counter(label: "ingest_rows_written_total")
  private let writeRetries = Counter(label: "ingest_store_retries_total")
  private let deadLetterLines = Counter(label: "ingest_dead_letter_lines_total")
  private let deadLetterRows = Counter(label: "ingest_dead_letters_total")
  private let writeTimer = Metrics.Timer(label: "ingest_batch_write_seconds")

  /// A writer into `store`; it writes nothing before `markPrepared()`.
  public init(
    store: any TotalsStore,
    delay: Duration?,
    naive: Bool,
    logger: Logger,
    health: Health = Health(),
    acks: Acknowledgements? = nil
  ) {
    self.acks = acks
    self.store = store
    self.delay = delay
    self.naive = naive
    self.logger = logger
    self.health = health
    self.ids = BatchSequence(writer: makeWriterID())
  }

  /// The store is prepared (its tables exist): writes may go.
  public nonisolated func markPrepared() { prepared.complete() }

  /// The lines of the batch being written now (for the shutdown report). relaxed: a report.
  public nonisolated var linesInFlight: Int { inFlight.load(ordering: .relaxed) }

  /// The lines sent to the dead letters so far. relaxed: a report.
  public nonisolated var deadLetteredLines: Int { deadLettered.load(ordering: .relaxed) }

  /// Writes one batch; returns its number of lines (stored or dead-lettered).
  public func write(_ batch: [CheckedReading]) async -> Int {
    inFlight.store(batch.count, ordering: .relaxed)
    defer { inFlight.store(0, ordering: .relaxed) }
    if !isPrepared {
      await prepared.wait()
      isPrepared = true
    }
    let start = ContinuousClock.now
    // Plain loops over the batch (no key-path closures): this runs for every line, on the one
    // writer.
    var refused: [DeadLetter] = []
    for line in batch where line.refused {
      let reason = "sum-overflow: the key's total would leave bigint"
      refused.append(DeadLetter(key: line.key, total: line.value, lines: 1, reason: reason))
    }
    if !refused.isEmpty { await deadLetter(refused) }
    if naive {
      for line in batch where !line.refused {
        await writeOrSplit([Delta(key: line.key, total: line.value, lines: 1)])
      }
    } else {
      // One delta per key: the sum of its accepted readings in the batch (wrapping, as the store's
      // checked addition is what refuses a total out of range; a lane's running total is checked
      // already, so a delta is the difference of two totals in range).
      var index: [String: Int] = [:]
      var deltas: [Delta] = []
      for line in batch where !line.refused {
        if let at = index[line.key] {
          deltas[at].total &+= line.value
          deltas[at].lines &+= 1
        } else {
          index[line.key] = deltas.count
          deltas.append(Delta(key: line.key, total: line.value, lines: 1))
        }
      }
      await writeOrSplit(deltas)
      rowsWritten.increment(by: Int64(deltas.count))
    }
    if let acks {
      var tokens: [UInt64] = []
      tokens.reserveCapacity(batch.count)
      for line in batch { tokens.append(line.ack) }
      acks.stored(tokens)
    }
    if let delay { try? await Task.sleep(for: delay) }
    batchesWritten.increment()
    writeTimer.recordNanoseconds(Int64((ContinuousClock.now - start).nanosecondsApproximately))
    return batch.count
  }

  /// Writes `deltas` under a new id; on a data error, splits them until the offending keys are
  /// alone, and sends those to the dead letters.
  private func writeOrSplit(_ deltas: [Delta]) async {
    guard !deltas.isEmpty else { return }
    let id = ids.next()
    guard let dataError = await retrying(id, { [store] in try await store.add(deltas, batch: id) }) else { return }
    if deltas.count == 1 {
      let delta = deltas[0]
      await deadLetter([DeadLetter(key: delta.key, total: delta.total, lines: delta.lines, reason: dataError)])
      return
    }
    let half = deltas.count / 2
    await writeOrSplit(Array(deltas[..<half]))
    await writeOrSplit(Array(deltas[half...]))
  }

  private func deadLetter(_ letters: [DeadLetter]) async {
    let id = ids.next()
    let lines = letters.reduce(0) { $0 + Int($1.lines) }
    logger.warning(
      "dead letters",
      metadata: [
        "batch": "\(id)", "rows": "\(letters.count)", "lines": "\(lines)",
        "keys": "\(Set(letters.map(\.key)).sorted().prefix(8).joined(separator: ","))",
        "reason": "\(letters[0].reason)",
      ]
    )
    if let error = await retrying(id, { [store] in try await store.deadLetter(letters, batch: id) }) {
      logger.error("the dead letters themselves were refused; counted only", metadata: ["error": "\(error)"])
    }
    deadLetterRows.increment(by: Int64(letters.count))
    deadLetterLines.increment(by: Int64(lines))
    deadLettered.add(lines, ordering: .relaxed)
  }

  /// Runs `attempt` until it succeeds (`nil`) or fails with a data error (its description);
  /// retryable errors are retried with capped exponential backoff, the first logged at `error`,
  /// then one a minute.
  private func retrying(_ id: BatchID, _ attempt: @Sendable () async throws -> Void) async -> String? {
    var backoff = Backoff()
    while true {
      do {
        try await attempt()
        if lastErrorLog != nil {
          logger.info("store reachable again", metadata: ["batch": "\(id)"])
          lastErrorLog = nil
        }
        health.set(.ready)
        return nil
      } catch {
        let description = describe(error)
        if classify(error) == .data {
          logger.warning("store refused the data", metadata: ["batch": "\(id)", "error": "\(description)"])
          return description
        }
        writeRetries.increment()
        health.set(.degraded)
        let delay = backoff.next()
        let now = ContinuousClock.now
        if let last = lastErrorLog, now - last < .seconds(60) {
          logger.debug("store write failed, retrying", metadata: ["batch": "\(id)", "error": "\(description)"])
        } else {
          lastErrorLog = now
          logger.error(
            "store write failed: database unreachable; retrying with backoff (logged again in a minute if it lasts)",
            metadata: ["batch": "\(id)", "error": "\(description)", "retry-in": "\(delay)"]
          )
        }
        try? await Task.sleep(for: delay)
      }
    }
  }
}

extension Duration {
  var nanosecondsApproximately: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
