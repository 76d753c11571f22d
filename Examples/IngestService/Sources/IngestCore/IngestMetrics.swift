import Metrics

/// The server's own series (swift-metrics; the Prometheus backend renders them on `/metrics`).
/// The connections add their counts once per read, not once per line.
public struct IngestMetrics: Sendable {
  /// Lines parsed and sent into the pipeline.
  public let accepted = Counter(label: "ingest_lines_accepted_total")
  /// Lines skipped because they did not parse.
  public let malformed = Counter(label: "ingest_lines_malformed_total")
  /// Connections closed because a line was longer than the limit.
  public let overlong = Counter(label: "ingest_connections_closed_overlong_total")
  /// Connections closed because they sent nothing for the idle timeout.
  public let closedIdle = Counter(label: "ingest_connections_closed_idle_total")
  /// Connections closed because a line did not end within the read timeout.
  public let closedSlow = Counter(label: "ingest_connections_closed_slow_total")
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
