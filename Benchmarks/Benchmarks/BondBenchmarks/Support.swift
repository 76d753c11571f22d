// Shared vocabulary of the suite: scenarios, engines, how a benchmark is registered, and the
// small helpers every engine uses (the sum box, opaque closures, the naive observer list).
//
// Naming: every benchmark is called "<id> <name>" with two tags, `engine` and `events`
// (package-benchmark appends them: "S1 send-1 (engine: Bond, events: 1000000)").
// `perf/table.py` reads both back: `events` is the number of events (or subscriptions, for
// S8 and S9; disposals, for S9b) one iteration performs, the authority for every per-event figure.

import Benchmark
import Dispatch
import Foundation
import Synchronization

/// One row of the table (PERFORMANCE.md).
struct Scenario: Sendable {
  let id: String
  let name: String

  static let s1 = Scenario(id: "S1", name: "send-1")
  static let s2 = Scenario(id: "S2", name: "chain")
  static let s3 = Scenario(id: "S3", name: "fanout-10")
  static let s4 = Scenario(id: "S4", name: "combine-latest")
  static let s5 = Scenario(id: "S5", name: "merge-8")
  static let s6 = Scenario(id: "S6", name: "switch-latest")
  static let s7 = Scenario(id: "S7", name: "deliver-on")
  static let s8 = Scenario(id: "S8", name: "replay-subscribe")
  static let s9 = Scenario(id: "S9", name: "churn")
  static let s9b = Scenario(id: "S9b", name: "dispose-under-slow-observer")
  static let s10 = Scenario(id: "S10", name: "concurrent-send")
  static let s11 = Scenario(id: "S11", name: "throttle")
  static let s12a = Scenario(id: "S12a", name: "array-append")
  static let s12b = Scenario(id: "S12b", name: "array-replace-diff")
  static let s12c = Scenario(id: "S12c", name: "array-replace-reset")
  static let s12d = Scenario(id: "S12d", name: "array-filter-elements")
}

/// One column of the table.
enum Engine: String, Sendable {
  case bond = "Bond"
  case openCombine = "OpenCombine"
  /// swift-async-algorithms: pull-based (a consumer task iterates; senders suspend).
  case asyncAlgorithms = "AsyncAlgorithms"
  /// Baseline (a): a plain Swift closure call per event, the physical floor.
  case closure
  /// Baseline (b): a `[(Int) -> Void]` observer list in a final class (`NaiveSubject`).
  case naive
  /// Not an engine: the empty benchmark whose mallocs are the framework's own overhead.
  case calibration
}

/// Events per iteration of the per-event scenarios (`scalingFactor: .mega`).
let million = 1_000_000

/// Events per iteration of the peers (OpenCombine, swift-async-algorithms): they cost 0.2 to
/// 60 µs per event, and an iteration must stay under 2 s (package-benchmark records no
/// throughput for a longer one, and its JMH export then drops the benchmark).
let peerEventsPerIteration = 100_000

/// Subscriptions per iteration of S8 and S9 (`scalingFactor: .kilo`).
let subscriptionsPerIteration = 1_000

/// Disposals per iteration of S9b: few, because a `dispose()` that waits for the slow observer
/// (Bond before issue 9) costs 20 µs to milliseconds on a loaded machine (its yield loop), and an
/// iteration must stay under 2 s.
let disposalsPerIteration = 50

let suiteMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .instructions]

/// Registers one (scenario, engine) benchmark.
///
/// - Parameters:
///   - events: events (or subscriptions) one iteration performs; `perf/table.py` divides by it.
///   - body: the iteration; it calls `benchmark.startMeasurement()` once its setup is done and
///     `benchmark.stopMeasurement()` before its teardown, so ns/event and mallocs/event are
///     the steady state.
func register(
  _ scenario: Scenario,
  _ engine: Engine,
  events: Int = million,
  _ body: @escaping (Benchmark) -> Void
) {
  Benchmark(
    "\(scenario.id) \(scenario.name)",
    configuration: configuration(engine, events: events),
    closure: body
  )
}

/// Registers one (scenario, engine) benchmark whose iteration is `async` (the pull-based engine).
func registerAsync(
  _ scenario: Scenario,
  _ engine: Engine,
  events: Int = million,
  _ body: @escaping (Benchmark) async -> Void
) {
  Benchmark(
    "\(scenario.id) \(scenario.name)",
    configuration: configuration(engine, events: events),
    closure: body
  )
}

private func configuration(_ engine: Engine, events: Int) -> Benchmark.Configuration {
  // The scaling factor only affects package-benchmark's own text output ("*" columns);
  // perf/table.py uses the `events` tag.
  let scaling: BenchmarkScalingFactor =
    switch events {
    case 1_000_000: .mega
    case 1_000: .kilo
    default: .one
    }
  return .init(
    metrics: suiteMetrics,
    tags: ["engine": engine.rawValue, "events": String(events)],
    warmupIterations: 1,
    scalingFactor: scaling,
    maxDuration: .milliseconds(benchmarkMaxMilliseconds),
    maxIterations: 1_000
  )
}

/// How long each benchmark measures (after its warm-up iteration). `BOND_BENCH_MAX_MS` overrides.
let benchmarkMaxMilliseconds: Int = {
  if let text = ProcessInfo.processInfo.environment["BOND_BENCH_MAX_MS"], let value = Int(text), value > 0 {
    return value
  }
  return 1_000
}()

/// The observer's accumulator. Every engine's observer does `sum &+= value`, and the sum goes
/// through `blackHole` at the end of the iteration.
///
/// `@unchecked Sendable`: only one thread touches it at a time; the engines under test serialize
/// delivery, and the benchmark reads `sum` only after waiting for the last delivery
/// (a semaphore, a queue `sync` or a task join, each a happens-before edge).
final class Sink: @unchecked Sendable {
  var sum = 0
  var count = 0
}

/// Hides a closure from the optimizer so the call stays a real indirect call (the baselines would
/// otherwise be inlined into the loop and measure nothing).
@inline(__always)
func opaque<T>(_ value: T) -> T { identity(value) }

/// Moves a value that is not `Sendable` into a `@Sendable` closure.
///
/// `@unchecked Sendable`: the benchmarks hand such a box to threads that use what it holds only
/// under the engine's or the benchmark's own serialization (documented at each use).
struct UncheckedBox<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// Runs `body(thread)` on `threads` threads started together; returns when all have finished.
func runConcurrently(threads: Int, _ body: @Sendable (Int) -> Void) {
  DispatchQueue.concurrentPerform(iterations: threads, execute: body)
}

// MARK: - S9b dispose-under-slow-observer

/// How long S9b's slow observer takes per event: it busy-waits this long by itself, never waiting
/// for another thread, so a `dispose()` that waits for the delivery in flight (Bond before issue 9)
/// waits a bounded time and the scenario cannot deadlock.
let slowObserverNanoseconds: UInt64 = 20_000

/// S9b's other thread: it sends events one after another into the engine, whose slow observer
/// (`slowObserver`) is delivering nearly all the time, while the measured thread disposes.
///
/// Use: register the slow observer (calling `slowObserver`) and the observations to dispose,
/// `start` (returns once the slow observer has received its first event, so the sender holds the
/// delivery when the measurement starts), measure the disposals, `stop` (returns once the sender
/// has left its loop).
final class SlowObserverSender: Sendable {
  private let stopRequested = Atomic<Bool>(false)
  private let firstDeliveryDone = Atomic<Bool>(false)
  /// Events the slow observer has finished.
  private let delivered = Atomic<Int>(0)
  private let firstDelivery = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)

  /// The slow observer's body: signals the first delivery, then busy-waits
  /// `slowObserverNanoseconds` (on the clock, so a descheduled sender does not stretch it).
  func slowObserver(_ value: Int) {
    if !firstDeliveryDone.load(ordering: .relaxed) {
      firstDeliveryDone.store(true, ordering: .relaxed)
      firstDelivery.signal()
    }
    let end = DispatchTime.now().uptimeNanoseconds &+ slowObserverNanoseconds
    while DispatchTime.now().uptimeNanoseconds < end {}
    blackHole(value)
    delivered.add(1, ordering: .releasing)
  }

  /// Starts a thread calling `send(0)`, `send(1)`, ... until `stop()`; returns once the slow
  /// observer has been called.
  func start(_ send: @escaping @Sendable (Int) -> Void) {
    let thread = Thread { [self] in
      var i = 0
      while !stopRequested.load(ordering: .relaxed) {
        send(i)
        i &+= 1
        // Paced by the slow observer: the next event only once this one has been delivered. When
        // the sender holds the delivery it has been (send returned after it); when another thread
        // holds it (a dispose() that found the producer idle), the event was queued and that thread
        // delivers it within ~20 µs. Without this, the sender would queue events faster than the
        // other thread delivers them, and that thread would never get back (unbounded queue).
        while delivered.load(ordering: .acquiring) < i && !stopRequested.load(ordering: .relaxed) {}
      }
      finished.signal()
    }
    thread.start()
    firstDelivery.wait()
  }

  /// Stops the sending thread and waits until it has left its loop.
  func stop() {
    stopRequested.store(true, ordering: .relaxed)
    finished.wait()
  }
}

// MARK: - Baseline (b): the naive observer list

/// The naive engine: a `[(Int) -> Void]` observer list in a final class. No locking, no
/// reentrancy handling, no replay unless asked: the cheapest thing a hand-written observer
/// pattern does.
final class NaiveSubject<Event> {
  private(set) var observers: [(token: Int, observer: (Event) -> Void)] = []
  private var nextToken = 0
  private var replayBuffer: [Event] = []
  private let replayLength: Int

  init(replayLength: Int = 0) {
    self.replayLength = replayLength
    replayBuffer.reserveCapacity(replayLength)
  }

  @discardableResult
  func observe(_ observer: @escaping (Event) -> Void) -> Int {
    for event in replayBuffer { observer(event) }
    let token = nextToken
    nextToken &+= 1
    observers.append((token, observer))
    return token
  }

  func remove(_ token: Int) {
    if let index = observers.firstIndex(where: { $0.token == token }) {
      observers.remove(at: index)
    }
  }

  func send(_ event: Event) {
    if replayLength > 0 {
      if replayBuffer.count == replayLength { replayBuffer.removeFirst() }
      replayBuffer.append(event)
    }
    for entry in observers { entry.observer(event) }
  }
}
