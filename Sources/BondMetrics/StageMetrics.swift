import Bond
import CoreMetrics

/// Exports one stage's `DeliveryStatistics` through swift-metrics, under the dimension
/// `("stage", stage)`:
///
/// | series | kind | value |
/// |---|---|---|
/// | `bond_stage_delivered_total` | counter | events handed to the observers |
/// | `bond_stage_dropped_total` | counter | events dropped because a buffer was full |
/// | `bond_stage_pressure_total` | counter | times a buffer came under pressure |
/// | `bond_stage_buffered` | gauge | events waiting now |
/// | `bond_stage_latency_seconds` | timer | sampled latency from `next` to delivery |
///
/// ```swift
/// let stats = DeliveryStatistics(latencySampleEvery: 1024)
/// let lanes = producer.partition(lanes: 4, bufferLimit: 4096, whenFull: .backpressure, statistics: stats) { $0.key }
/// let metrics = StageMetrics(stage: "lanes", statistics: stats)
/// try await metrics.run(every: .seconds(1))   // or metrics.update() before each scrape
/// ```
///
/// The statistics count; ``update()`` reads them and records into swift-metrics: the counters grow
/// by what the statistics counted since the previous update, the gauge is set to the events waiting
/// now. The latency samples (when the statistics take them) go to the timer as they are taken, each
/// on the thread of the drain that timed it. The stage pays nothing for this beyond the statistics'
/// own counting (see `DeliveryStatistics`).
///
/// - Note: thread-safe: ``update()`` may be called from several threads at once; each counted
///   event is recorded once.
public final class StageMetrics: Sendable {
  /// The stage's name: the value of the `stage` dimension of every series.
  public let stage: String
  /// The statistics this object exports.
  public let statistics: DeliveryStatistics

  let delivered: Counter
  let dropped: Counter
  let pressure: Counter
  let buffered: Gauge
  /// `bond_stage_latency_seconds`: fed by the statistics' latency samples as they are taken.
  let latency: CoreMetrics.Timer
  /// The statistics' counts as of the last update (what the counters have recorded).
  let recorded = LockedState(Counts())

  /// The series' names (Prometheus conventions: `_total` for a counter, the unit in the name).
  public enum Series {
    /// Counter: events handed to the observers.
    public static let delivered = "bond_stage_delivered_total"
    /// Counter: events dropped because a buffer was full.
    public static let dropped = "bond_stage_dropped_total"
    /// Counter: times a buffer came under pressure (`.backpressure`).
    public static let pressure = "bond_stage_pressure_total"
    /// Gauge: events waiting now.
    public static let buffered = "bond_stage_buffered"
    /// Timer: the sampled latency from `next` to delivery.
    public static let latency = "bond_stage_latency_seconds"
  }

  /// Creates the series of the stage named `stage` in `factory` (the one bootstrapped in
  /// `MetricsSystem` unless told), and feeds the latency timer with `statistics`' samples from now
  /// on. Call ``update()`` (or ``run(every:)``) to record the counts.
  ///
  /// Counts taken by `statistics` before this call are recorded by the first update.
  public init(stage: String, statistics: DeliveryStatistics, factory: any MetricsFactory = MetricsSystem.factory) {
    let dimensions = [("stage", stage)]
    self.stage = stage
    self.statistics = statistics
    self.delivered = Counter(label: Series.delivered, dimensions: dimensions, factory: factory)
    self.dropped = Counter(label: Series.dropped, dimensions: dimensions, factory: factory)
    self.pressure = Counter(label: Series.pressure, dimensions: dimensions, factory: factory)
    self.buffered = Gauge(label: Series.buffered, dimensions: dimensions, factory: factory)
    let latency = CoreMetrics.Timer(label: Series.latency, dimensions: dimensions, factory: factory)
    self.latency = latency
    if statistics.latencySampleEvery > 0 {
      // Captures the timer, not `self`: the statistics keep it for as long as they live.
      statistics.onLatencySample { sample in
        let (seconds, attoseconds) = sample.components
        latency.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
      }
    }
  }

  /// Reads the statistics and records them: each counter grows by what the statistics counted
  /// since the previous update, and the gauge is set to the events waiting now. Call it before a
  /// scrape, or let ``run(every:)`` call it periodically.
  public func update() {
    // The statistics are read and the deltas decided under the lock, so that two updates at once
    // never record an event twice (nor move `recorded` back); they are recorded after it (a
    // metrics backend is code of its own).
    let (delta, now) = recorded.withLock { last -> (Counts, Counts) in
      let now = Counts(statistics)
      defer { last = now }
      return (now - last, now)
    }
    if delta.delivered > 0 { delivered.increment(by: delta.delivered) }
    if delta.dropped > 0 { dropped.increment(by: delta.dropped) }
    if delta.pressure > 0 { pressure.increment(by: delta.pressure) }
    buffered.record(now.buffered)
  }

  /// Updates every one of `all` (see ``update()``).
  public static func update(_ all: [StageMetrics]) {
    for metrics in all { metrics.update() }
  }
}

/// The counts of a `DeliveryStatistics` at one moment.
struct Counts: Sendable {
  var delivered = 0
  var dropped = 0
  var pressure = 0
  var buffered = 0

  init() {}

  /// Reads `statistics` (each count on its own: they may move between the reads).
  init(_ statistics: DeliveryStatistics) {
    delivered = statistics.deliveredCount
    dropped = statistics.droppedCount
    pressure = statistics.pressureCount
    buffered = statistics.bufferedCount
  }

  /// What was counted since `earlier`, for the counters (`buffered` is this one's).
  static func - (now: Counts, earlier: Counts) -> Counts {
    var delta = now
    // A counter of the statistics only grows, and each read is taken under the lock after the
    // last one: the clamp only guards against a wrapped counter.
    delta.delivered = Swift.max(0, now.delivered - earlier.delivered)
    delta.dropped = Swift.max(0, now.dropped - earlier.dropped)
    delta.pressure = Swift.max(0, now.pressure - earlier.pressure)
    return delta
  }
}
