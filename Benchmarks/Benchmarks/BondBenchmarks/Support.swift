// What every scenario family shares: the scenario registry, the engines, how a benchmark is
// registered, and the small helpers every engine uses (the sum box, opaque closures, the naive
// observer list, the lock the hand-written concurrent engines take, the calibrated work).
//
// Scenarios: perf/scenarios.json is the one registry (id, title, unit, which engines apply, the
// file that is each scenario's home, notes); `register` names every benchmark from it and refuses
// an engine the scenario does not list, and perf/table.py reads it for the table.
//
// Naming: every benchmark is called "<id> <title>" with two tags, `engine` and `events`
// (package-benchmark appends them: "S1 send-1 (engine: Bond, events: 1000000)").
// `perf/table.py` reads both back: `events` is the number of events (or subscriptions, for
// S8 and S9; disposals, for S9b) one iteration performs, the authority for every per-event figure.

import BenchWork
import Benchmark
import Dispatch
import Foundation
import Synchronization

/// One scenario of perf/scenarios.json.
struct Scenario: Decodable, Sendable {
  let id: String
  let title: String
  /// The engines that have a cell in this scenario (the others are n/a in the table).
  let engines: [String]
}

/// perf/scenarios.json, by id: read once, from the source tree this suite was built from.
let scenarioRegistry: [String: Scenario] = {
  // This file is Benchmarks/Benchmarks/BondBenchmarks/Support.swift.
  let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  let path = root.appendingPathComponent("perf/scenarios.json")
  struct Registry: Decodable { let scenarios: [Scenario] }
  guard let data = try? Data(contentsOf: path) else {
    preconditionFailure("BondBenchmarks: cannot read the scenario registry \(path.path)")
  }
  do {
    let registry = try JSONDecoder().decode(Registry.self, from: data)
    return Dictionary(
      registry.scenarios.map { ($0.id, $0) },
      uniquingKeysWith: { first, _ in
        preconditionFailure("BondBenchmarks: scenario \(first.id) twice in \(path.path)")
      }
    )
  } catch {
    preconditionFailure("BondBenchmarks: \(path.path) is not a scenario registry: \(error)")
  }
}()

/// One column of the table.
enum Engine: String, Sendable {
  case bond = "Bond"
  case openCombine = "OpenCombine"
  /// swift-async-algorithms: pull-based (a consumer task iterates; senders suspend).
  case asyncAlgorithms = "AsyncAlgorithms"
  /// Baseline (a): a plain Swift closure call per event, the physical floor.
  case closure
  /// Baseline (c): the closure baseline's call between the uncontended atomic pair that any
  /// serialized send needs (`FloorSender`, Floor.swift): the floor of one serialized send per event.
  case floor
  /// Baseline (b): a `[(Int) -> Void]` observer list in a final class (`NaiveSubject`), composed
  /// the way a hand-written observer pattern composes.
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

let suiteMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .instructions]

/// Registers one (scenario, engine) benchmark.
///
/// - Parameters:
///   - events: events (or subscriptions) one iteration performs; `perf/table.py` divides by it.
///   - body: the iteration; it calls `benchmark.startMeasurement()` once its setup is done and
///     `benchmark.stopMeasurement()` before its teardown, so ns/event and mallocs/event are
///     the steady state.
func register(
  _ id: String,
  _ engine: Engine,
  events: Int = million,
  _ body: @escaping (Benchmark) -> Void
) {
  Benchmark(
    name(id, engine),
    configuration: configuration(engine, events: events),
    closure: body
  )
}

/// Registers one (scenario, engine) benchmark whose iteration is `async` (the pull-based engine).
func registerAsync(
  _ id: String,
  _ engine: Engine,
  events: Int = million,
  _ body: @escaping (Benchmark) async -> Void
) {
  Benchmark(
    name(id, engine),
    configuration: configuration(engine, events: events),
    closure: body
  )
}

/// The benchmark's name, "<id> <title>", after checking that the registry lists `engine` for `id`.
private func name(_ id: String, _ engine: Engine) -> String {
  guard let scenario = scenarioRegistry[id] else {
    preconditionFailure("BondBenchmarks: scenario \(id) is not in perf/scenarios.json")
  }
  precondition(
    scenario.engines.contains(engine.rawValue),
    "BondBenchmarks: perf/scenarios.json does not list engine \(engine.rawValue) for \(id)"
  )
  return "\(id) \(scenario.title)"
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

/// A lock and what it serializes, shared by the two sending threads.
final class Serialized<Target>: @unchecked Sendable {
  // @unchecked Sendable: `target` is used only inside `lock.withLock`.
  let lock = Mutex<Void>(())
  let target: Target
  init(_ target: Target) { self.target = target }
}

/// Counts events arriving on any number of threads; `wait()` returns once `expected` have.
final class CompletionCounter: Sendable {
  private let arrived = Atomic<Int>(0)
  private let expected: Int
  private let done = DispatchSemaphore(value: 0)

  init(expected: Int) { self.expected = expected }

  /// `count` more events have been handled (relaxed: the semaphore orders the end).
  @inline(__always)
  func add(_ count: Int = 1) {
    if arrived.add(count, ordering: .relaxed).newValue == expected { done.signal() }
  }

  func wait() { done.wait() }
}

/// Rounds of `mix` per nanosecond on this machine, measured once (best of 5 runs of 2M rounds;
/// seed and count go through `opaque` so the compiler cannot fold the loop).
let mixRoundsPerNanosecond: Double = {
  let rounds = opaque(2_000_000)
  var best = Double.infinity
  for run in 0..<5 {
    let start = DispatchTime.now().uptimeNanoseconds
    blackHole(mix(opaque(UInt64(run) &+ 0x9E37_79B9), rounds: rounds))
    best = Swift.min(best, Double(DispatchTime.now().uptimeNanoseconds - start))
  }
  // A dependent multiply, xor and shift per round: 0.1 to 2 rounds per ns on any current core.
  return Swift.min(2, Swift.max(0.1, Double(rounds) / best))
}()

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
