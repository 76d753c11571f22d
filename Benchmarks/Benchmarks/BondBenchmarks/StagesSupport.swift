// Shared by the pipeline-stage scenarios (S13 partition, S14 batches, S18 async in, S20b
// concurrency-limited map) and the vocabulary scenarios (S15 zip, S16 withLatestFrom, S17
// collect): the calibrated CPU work (`mix` is BenchWork's), the completion counter several lanes
// share, and the scenario ids.

import BenchWork
import Benchmark
import Dispatch
import Foundation
import Synchronization

extension Scenario {
  static let s13a = Scenario(id: "S13a", name: "partition-1-lane")
  static let s13b = Scenario(id: "S13b", name: "partition-2-lanes")
  static let s14a = Scenario(id: "S14a", name: "batches-200ns-consumer")
  static let s14b = Scenario(id: "S14b", name: "per-event-200ns-consumer")
  static let s15 = Scenario(id: "S15", name: "zip-2")
  static let s16 = Scenario(id: "S16", name: "with-latest-from")
  static let s17 = Scenario(id: "S17", name: "collect-100")
  static let s17b = Scenario(id: "S17b", name: "first-response")
  static let s18a = Scenario(id: "S18a", name: "async-in-buffered")
  static let s18b = Scenario(id: "S18b", name: "async-in-live")
  static let s20b = Scenario(id: "S20b", name: "concurrent-map-overhead")
  static let s22 = Scenario(id: "S22", name: "group-by")
  static let s23a = Scenario(id: "S23a", name: "timeout-rearm")
  static let s23b = Scenario(id: "S23b", name: "debounce-rearm")
  static let s24a = Scenario(id: "S24a", name: "scan")
  static let s24b = Scenario(id: "S24b", name: "distinct-by")
  static let s24c = Scenario(id: "S24c", name: "pairwise")
  static let s24d = Scenario(id: "S24d", name: "count")
  static let s24e = Scenario(id: "S24e", name: "contains")
  static let s24f = Scenario(id: "S24f", name: "min")
  static let s24g = Scenario(id: "S24g", name: "max")
  static let s24h = Scenario(id: "S24h", name: "last")
}

/// S20b: events per iteration, for every engine (the TaskGroup window starts a task per event,
/// 1-3 µs each here, and an iteration must stay under 2 s).
let concurrentMapEvents = 100_000

/// S13: distinct keys of the partitioned events (event `i` has key `i % partitionKeys`).
let partitionKeys = 1_000
/// S14: the batch size limit (`batches(on:maxCount:)`, OpenCombine `collect(_:)`).
let batchMaxCount = 1_000

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

/// S13's per-event transform: about 1 µs of hashing.
let microsecondOfWork = Swift.max(1, Int(1_000 * mixRoundsPerNanosecond))
/// S14's fixed per-call cost of the consumer: about 200 ns (what a syscall costs).
let consumerCallCost = Swift.max(1, Int(200 * mixRoundsPerNanosecond))

/// S13's transform of one event.
@inline(__always)
func partitionWork(_ value: Int) -> Int {
  Int(truncatingIfNeeded: mix(UInt64(truncatingIfNeeded: value), rounds: microsecondOfWork))
}

/// S14's consumer call: the fixed cost, then the events.
@inline(__always)
func consumerCall(_ count: Int) -> Int {
  Int(truncatingIfNeeded: mix(UInt64(truncatingIfNeeded: count), rounds: consumerCallCost))
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

/// The lane a hand-written partition sends key `key` to: the same rule as Bond's.
@inline(__always)
func lane(ofKey key: Int, lanes: Int) -> Int {
  Int(UInt(bitPattern: key.hashValue) % UInt(lanes))
}

/// An `AsyncStream` holding `count` elements already buffered, then its end.
func bufferedStream(count: Int) -> AsyncStream<Int> {
  let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
  for i in 0..<count { continuation.yield(i) }
  continuation.finish()
  return stream
}

/// An `AsyncStream` that a new thread feeds with `count` elements, then ends, while it is read.
func liveStream(count: Int) -> AsyncStream<Int> {
  let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
  let feeder = Thread {
    for i in 0..<count { continuation.yield(i) }
    continuation.finish()
  }
  feeder.start()
  return stream
}
