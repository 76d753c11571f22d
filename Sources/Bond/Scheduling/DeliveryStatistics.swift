import Dispatch
import Synchronization

/// Counts what the bounded stages it is given to (``EventProducerType/deliverOn(_:bufferLimit:whenFull:statistics:)``,
/// `partition`, bounded `batches`, and the concurrency-limited ``EventProducerType/map(maxConcurrent:bufferLimit:statistics:_:)``,
/// `mapUnordered`, `tryMap`) did: the events they delivered and dropped, the events waiting
/// in them now, how many times they came under pressure and, when asked for, a sample of the time
/// an event takes from `next` to its delivery. Create one, pass it to the operators, read it at any
/// time (BondMetrics' `StageMetrics` exports it through swift-metrics).
///
/// ```swift
/// let stats = DeliveryStatistics(latencySampleEvery: 1024)
/// let lanes = ticks.partition(lanes: 4, bufferLimit: 4096, whenFull: .backpressure, statistics: stats) { $0.key }
/// // later: stats.deliveredCount, stats.bufferedCount, stats.latencyMax
/// ```
///
/// One object may be given to several operators or observed chains: it counts them all (each
/// observation of a stage has its own buffer).
///
/// What it costs: a stage given none pays a `nil` check. A stage given one pays a relaxed atomic
/// add per event it takes in (``bufferedCount``) and one per drain (``deliveredCount``: a drain
/// delivers up to 1024 events, and adds them when it stops). Latency sampling, off by default,
/// costs one more relaxed add per event on the stage's own counter, and a clock read at each end
/// of a sampled event (the concurrency-limited stages take no sample). See <doc:StatisticsGuide>.
/// - Note: thread-safe.
public final class DeliveryStatistics: Sendable {
  @usableFromInline let dropped = Atomic<Int>(0)
  @usableFromInline let buffered = Atomic<Int>(0)
  @usableFromInline let pressures = Atomic<Int>(0)
  @usableFromInline let delivered = Atomic<Int>(0)
  @usableFromInline let latencies = Atomic<Int>(0)
  @usableFromInline let latencyNanos = Atomic<Int>(0)
  @usableFromInline let latencyMaxNanos = Atomic<Int>(0)
  /// Called with each latency sample, outside any lock (see ``onLatencySample(_:)``).
  let latencyHandlers = LockedState<[@Sendable (Duration) -> Void]>([])

  /// One event in this many is timed from `next` to its delivery; 0: none (latency sampling off).
  public let latencySampleEvery: Int

  /// Creates counters at 0. With `latencySampleEvery` above 0, each stage given this object times
  /// one event in that many (its first, then every `latencySampleEvery`-th it takes in) from `next`
  /// to the moment its drain hands it to the observer (or, for a `.backpressure` drain that takes
  /// up to 32 events per lock, starts on them), on the stage's scheduler's clock (a
  /// ``ClockedScheduler``'s `now`, such as a `DispatchQueue`'s uptime or a `TestScheduler`'s
  /// virtual time; the uptime clock for any other scheduler).
  ///
  /// A stage times one event at a time: a sampled event that arrives while the previous one is
  /// still waiting is not timed, nor is one that is dropped or let go by a dispose.
  /// - Precondition: `latencySampleEvery` is 0 or more.
  public init(latencySampleEvery: Int = 0) {
    precondition(
      latencySampleEvery >= 0,
      "DeliveryStatistics(latencySampleEvery:): latencySampleEvery must be 0 or more, got \(latencySampleEvery)"
    )
    self.latencySampleEvery = latencySampleEvery
  }

  /// The number of events handed to the observers so far (a `batches` array counts as its events).
  /// A drain adds the events it delivered when it stops (after at most 1024), before the end is
  /// delivered.
  public var deliveredCount: Int {
    delivered.load(ordering: .relaxed)
  }

  /// The number of events dropped so far because a buffer was full.
  public var droppedCount: Int {
    dropped.load(ordering: .relaxed)
  }

  /// The number of events waiting now in the buffers this object was given to (taken out when the
  /// drain takes them to hand them to the observer, dropped, or let go by a dispose).
  public var bufferedCount: Int {
    buffered.load(ordering: .relaxed)
  }

  /// How many times one of those buffers came under pressure (`.backpressure`: it reached its
  /// `bufferLimit` while not under pressure).
  public var pressureCount: Int {
    pressures.load(ordering: .relaxed)
  }

  /// The number of latency samples taken so far (0 while sampling is off).
  public var latencySampleCount: Int {
    latencies.load(ordering: .relaxed)
  }

  /// The sum of the latency samples so far (divide by ``latencySampleCount`` for the mean).
  public var latencyTotal: Duration {
    .nanoseconds(latencyNanos.load(ordering: .relaxed))
  }

  /// The longest latency sample so far (zero before the first).
  public var latencyMax: Duration {
    .nanoseconds(latencyMaxNanos.load(ordering: .relaxed))
  }

  /// Calls `handler` with every latency sample from now on (for as long as this object lives), on
  /// the thread of the drain that delivered the sampled event, right before it hands the event
  /// over, outside any lock. Keep it short: it delays that delivery. BondMetrics' `StageMetrics`
  /// records the samples into a swift-metrics timer through it.
  public func onLatencySample(_ handler: @escaping @Sendable (Duration) -> Void) {
    latencyHandlers.withLock { $0.append(handler) }
  }

  @inlinable
  func recordDrop() {
    // relaxed: counters; they publish nothing else.
    dropped.add(1, ordering: .relaxed)
  }

  @inlinable
  func recordBuffered(_ change: Int) {
    buffered.add(change, ordering: .relaxed)
  }

  @inlinable
  func recordPressure() {
    pressures.add(1, ordering: .relaxed)
  }

  @inlinable
  func recordDelivered(_ count: Int) {
    delivered.add(count, ordering: .relaxed)
  }

  /// A latency sample of `seconds` (clamped at 0: a clock that is not monotonic may go back).
  @usableFromInline
  func recordLatency(seconds: Double) {
    let nanos = Int((Swift.max(0, seconds) * 1e9).rounded())
    // relaxed: counters; they publish nothing else. The max is a CAS loop on a rare path (one
    // event in `latencySampleEvery`).
    latencies.add(1, ordering: .relaxed)
    latencyNanos.add(nanos, ordering: .relaxed)
    var seen = latencyMaxNanos.load(ordering: .relaxed)
    while nanos > seen {
      let (exchanged, current) = latencyMaxNanos.compareExchange(
        expected: seen,
        desired: nanos,
        ordering: .relaxed
      )
      if exchanged { break }
      seen = current
    }
    // Copied out, called after the lock: a handler is user code.
    let handlers = latencyHandlers.withLock { $0 }
    for handler in handlers { handler(.nanoseconds(nanos)) }
  }
}

/// The per-stage half of latency sampling (one per observation of a stage whose statistics sample):
/// picks the sampled events and reads the clock.
/// - Note: thread-safe.
@usableFromInline
final class LatencySampler: Sendable {
  @usableFromInline let every: Int
  @usableFromInline let clock: @Sendable () -> Double
  /// The events taken in so far (wrapping): the stage's own counter, not shared with other stages.
  @usableFromInline let ticket = Atomic<Int>(0)

  @usableFromInline
  init<S: Scheduler>(every: Int, scheduler: S) {
    self.every = every
    if let clocked = scheduler as? any ClockedScheduler {
      self.clock = { clocked.now }
    } else {
      self.clock = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    }
  }

  /// The sampler of a stage on `scheduler` given `statistics`, or `nil` when they do not sample.
  @inlinable
  static func make<S: Scheduler>(for statistics: DeliveryStatistics?, on scheduler: S) -> LatencySampler? {
    guard let statistics, statistics.latencySampleEvery > 0 else { return nil }
    return LatencySampler(every: statistics.latencySampleEvery, scheduler: scheduler)
  }

  /// Called by a sender before it takes the stage's lock: the time now if this event is sampled.
  @inlinable
  func startIfSampled() -> Double? {
    // relaxed: a counter that picks the sampled events; it publishes nothing.
    let number = ticket.wrappingAdd(1, ordering: .relaxed).oldValue
    return number % every == 0 ? clock() : nil
  }
}
