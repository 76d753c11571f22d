import Logging
import Metrics

/// The sink's async writer: turns a batch of running totals into one delta per key and awaits the
/// store (a suspended task while the database works, never a blocked thread). A failed write is
/// retried (nothing is dropped); `delay` slows every batch down (`--batch-delay-ms`, the slow
/// consumer); `naive` writes one statement per line instead, for comparison.
public actor BatchWriter {
  let store: any TotalsStore
  let delay: Duration?
  let naive: Bool
  let logger: Logger
  /// What has been written per key: a batch's delta is the running total minus this.
  private var written: [String: StoredTotal] = [:]
  private let batchesWritten = Counter(label: "ingest_batches_written_total")
  private let rowsWritten = Counter(label: "ingest_rows_written_total")
  private let writeRetries = Counter(label: "ingest_store_retries_total")
  private let writeTimer = Metrics.Timer(label: "ingest_batch_write_seconds")

  /// A writer into `store`.
  public init(store: any TotalsStore, delay: Duration?, naive: Bool, logger: Logger) {
    self.store = store
    self.delay = delay
    self.naive = naive
    self.logger = logger
  }

  /// Writes one batch; returns its number of lines.
  public func write(_ batch: [KeyTotal]) async -> Int {
    let start = ContinuousClock.now
    if naive {
      for line in batch {
        await retrying([Delta(key: line.key, total: line.value, lines: 1)])
      }
    } else {
      // The latest running total of each key in the batch (the highest line count: a key's
      // running totals come from one lane, in order).
      var latest: [String: KeyTotal] = [:]
      for line in batch where line.lines > latest[line.key]?.lines ?? 0 { latest[line.key] = line }
      var deltas: [Delta] = []
      deltas.reserveCapacity(latest.count)
      for (key, line) in latest {
        let before = written[key] ?? StoredTotal(total: 0, lines: 0)
        deltas.append(Delta(key: key, total: line.total &- before.total, lines: line.lines &- before.lines))
      }
      await retrying(deltas)
      for (key, line) in latest { written[key] = StoredTotal(total: line.total, lines: line.lines) }
      rowsWritten.increment(by: Int64(deltas.count))
    }
    if let delay { try? await Task.sleep(for: delay) }
    batchesWritten.increment()
    writeTimer.recordNanoseconds(Int64((ContinuousClock.now - start).nanosecondsApproximately))
    return batch.count
  }

  /// Writes `deltas`, retrying every second until the store takes them.
  private func retrying(_ deltas: [Delta]) async {
    while true {
      do {
        try await store.add(deltas)
        return
      } catch {
        writeRetries.increment()
        logger.error("store write failed, retrying in 1 s", metadata: ["error": "\(String(reflecting: error))"])
        try? await Task.sleep(for: .seconds(1))
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
