import Bond
import Metrics
import Synchronization

/// The server's own series (swift-metrics; the Prometheus backend renders them on `/metrics`).
/// The connections add their counts once per read, not once per line.
public struct IngestMetrics: Sendable {
  /// Lines parsed and sent into the pipeline.
  public let accepted = Counter(label: "ingest_lines_accepted_total")
  /// Lines skipped because they did not parse.
  public let malformed = Counter(label: "ingest_lines_malformed_total")
  /// Connections closed because a line was longer than the limit.
  public let overlong = Counter(label: "ingest_connections_closed_overlong_total")
  /// Connections refused because the limit was reached.
  public let refused = Counter(label: "ingest_connections_refused_total")
  /// Times a connection stopped reading because the pipeline was not writable.
  public let readPauses = Counter(label: "ingest_read_pauses_total")
  /// Open connections.
  public let connections = Gauge(label: "ingest_connections")
  /// Whether the pipeline's producer is writable (1) or not (0).
  public let writable = Gauge(label: "ingest_pipeline_writable")

  /// The series, registered with the bootstrapped metrics system.
  public init() {}
}

/// Exports a `DeliveryStatistics` as `ingest_stage_*` series with a `stage` label; `update()` before
/// each scrape (counters advance by what changed since the previous update).
public final class StageStatisticsExporter: Sendable {
  let statistics: DeliveryStatistics
  let pressure: Counter
  let dropped: Counter
  let buffered: Gauge
  let last = Mutex<(pressure: Int, dropped: Int)>((0, 0))

  /// An exporter of `statistics` labelled `stage`.
  public init(stage: String, statistics: DeliveryStatistics) {
    self.statistics = statistics
    let dimensions = [("stage", stage)]
    pressure = Counter(label: "ingest_stage_pressure_total", dimensions: dimensions)
    dropped = Counter(label: "ingest_stage_dropped_total", dimensions: dimensions)
    buffered = Gauge(label: "ingest_stage_buffered", dimensions: dimensions)
  }

  /// Reads the statistics into the series.
  public func update() {
    let (pressureNow, droppedNow) = (statistics.pressureCount, statistics.droppedCount)
    let (pressureDelta, droppedDelta) = last.withLock { last in
      defer { last = (max(last.pressure, pressureNow), max(last.dropped, droppedNow)) }
      return (max(0, pressureNow - last.pressure), max(0, droppedNow - last.dropped))
    }
    if pressureDelta > 0 { pressure.increment(by: Int64(pressureDelta)) }
    if droppedDelta > 0 { dropped.increment(by: Int64(droppedDelta)) }
    buffered.record(statistics.bufferedCount)
  }
}
