// Scale curves (perf/curves): how the cost per event grows with the number of observers, the replay
// length on subscribe, the length of an operator chain and the arity of combineLatest, for Bond and
// (where it has the feature) OpenCombine. Prints one JSON object per point:
//   {"curve": "observers", "x": 10, "engine": "Bond", "ns": 31.2}
// Times are wall clock, best of 3 runs of each point, in one process: compare within one run.
// `BondCurves lanes` prints only the lanes curve (partition over 1, 2, 4, 8 lanes); `BondCurves map`
// only its sibling, map(maxConcurrent:) at 1, 2, 4, 8 beside the TaskGroup window of as many.
// The ~1 µs of work (`mix`, `microsecondOfRounds`) and the TaskGroup window are BenchWork's.
import BenchWork
import Bond
import Dispatch
import Foundation
import OpenCombine
import Synchronization

final class Sum { var value = 0 }
let sum = Sum()

/// Best of 3 of `body`, in ns per unit of work (`units` events or subscriptions).
func measure(_ units: Int, _ body: () -> Void) -> Double {
  var best = Double.infinity
  for _ in 0..<3 {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / Double(units))
  }
  return best
}

func point(_ curve: String, _ x: Int, _ engine: String, _ ns: Double) {
  print("{\"curve\": \"\(curve)\", \"x\": \(x), \"engine\": \"\(engine)\", \"ns\": \(ns)}")
}

let events = 200_000

/// Events handled on any thread; `wait` returns once `expected` have.
final class Completion: Sendable {
  let arrived = Atomic<Int>(0)
  let expected: Int
  let done = DispatchSemaphore(value: 0)
  init(expected: Int) { self.expected = expected }
  func add() { if arrived.add(1, ordering: .relaxed).newValue == expected { done.signal() } }
}

/// Lanes: `partition(lanes:)` with ~1 µs of work per event on the lanes, against one serial
/// DispatchQueue per lane with one `async` per event; ns per event, timed until the last is done.
func lanesCurve() {
  let rounds = microsecondOfRounds()
  let count = 100_000
  for lanes in [1, 2, 4, 8] {
    point(
      "lanes",
      lanes,
      "Bond",
      measure(count) {
        let producer = EventProducer<Int>()
        let partition = producer.partition(lanes: lanes) { $0 % 1_000 }
        let completion = Completion(expected: count)
        let observations = partition.lanes.map { lane in
          lane.observe { value in
            consume(Int(truncatingIfNeeded: mix(UInt64(value), rounds: rounds)))
            completion.add()
          }
        }
        for i in 0..<count { producer.next(i) }
        completion.done.wait()
        partition.dispose()
        observations.forEach { $0.dispose() }
      }
    )
    point(
      "lanes",
      lanes,
      "hand-written",
      measure(count) {
        let queues = (0..<lanes).map { DispatchQueue(label: "curves.lane\($0)") }
        let completion = Completion(expected: count)
        for i in 0..<count {
          let lane = Int(UInt(bitPattern: (i % 1_000).hashValue) % UInt(lanes))
          queues[lane].async {
            consume(Int(truncatingIfNeeded: mix(UInt64(i), rounds: rounds)))
            completion.add()
          }
        }
        completion.done.wait()
      }
    )
  }
}

/// The lanes curve's sibling: `map(maxConcurrent: n)` with ~1 µs of work per event in the transform,
/// fed by `try await send(i)` from a task (default `bufferLimit`, memory bounded), against the
/// hand-written `TaskGroup` window of `n`; ns per event, timed until the stage's end (the last result).
func concurrentMapCurve() {
  let rounds = microsecondOfRounds()
  let count = 100_000
  let work: @Sendable (Int) async -> Int = { value in
    consume(Int(truncatingIfNeeded: mix(UInt64(value), rounds: rounds)))
    return value
  }
  /// Runs `body` in a task and waits for it on this (non-pool) thread.
  func blocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
      await body()
      done.signal()
    }
    done.wait()
  }
  for width in [1, 2, 4, 8] {
    point(
      "concurrentMap",
      width,
      "Bond",
      measure(count) {
        blocking {
          let producer = EventProducer<Int>()
          let completion = BenchWork.Completion(count: 1)
          let observation = producer.map(maxConcurrent: width, work)
            .observe({ _ in }, finished: { completion.finishOne() })
          for i in 0..<count { try? await producer.send(i) }
          producer.finish()
          await completion.wait()
          observation.dispose()
        }
      }
    )
    point(
      "concurrentMap",
      width,
      "TaskGroup window",
      measure(count) {
        blocking { await taskGroupWindow(count: count, width: width, work) { _ in } }
      }
    )
  }
}

switch CommandLine.arguments.dropFirst().first {
case "lanes":
  lanesCurve()
  exit(0)
case "map":
  concurrentMapCurve()
  exit(0)
default:
  break
}

// Observers: one event to N observers, ns per event.
for n in [1, 10, 100, 1_000] {
  let scaled = max(1_000, events / n)
  do {
    let producer = EventProducer<Int>()
    let observations = (0..<n).map { _ in producer.observe { sum.value &+= $0 } }
    point("observers", n, "Bond", measure(scaled) { for i in 0..<scaled { producer.next(i) } })
    observations.forEach { $0.dispose() }
  }
  do {
    let subject = PassthroughSubject<Int, Never>()
    let cancellables = (0..<n).map { _ in subject.sink { sum.value &+= $0 } }
    point("observers", n, "OpenCombine", measure(scaled) { for i in 0..<scaled { subject.send(i) } })
    cancellables.forEach { $0.cancel() }
  }
}

// Replay: subscribe (receiving the full replay) and dispose, ns per subscription.
for n in [1, 16, 1_024] {
  let producer = EventProducer<Int>(replayLength: n)
  for i in 0..<n { producer.next(i) }
  let subscriptions = max(200, 20_000 / n)
  point(
    "replay",
    n,
    "Bond",
    measure(subscriptions) {
      for _ in 0..<subscriptions { producer.observe { sum.value &+= $0 }.dispose() }
    }
  )
}
do {  // OpenCombine's replay of 1: CurrentValueSubject
  let subject = CurrentValueSubject<Int, Never>(0)
  point(
    "replay",
    1,
    "OpenCombine",
    measure(20_000) {
      for _ in 0..<20_000 { subject.sink { sum.value &+= $0 }.cancel() }
    }
  )
}

// Chain: 1, 5, 20 `map` stages, ns per event.
do {
  let p = EventProducer<Int>()
  let chains: [(Int, any DisposableType)] = [
    (1, p.map { $0 &+ 1 }.observe { sum.value &+= $0 })
  ]
  point("chain", 1, "Bond", measure(events) { for i in 0..<events { p.next(i) } })
  chains.forEach { $0.1.dispose() }
  let five = p.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .observe { sum.value &+= $0 }
  point("chain", 5, "Bond", measure(events) { for i in 0..<events { p.next(i) } })
  five.dispose()
  let ten = p.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
  let twenty = ten.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .observe { sum.value &+= $0 }
  point("chain", 20, "Bond", measure(events) { for i in 0..<events { p.next(i) } })
  twenty.dispose()
}
do {
  let s = PassthroughSubject<Int, Never>()
  let scaled = events / 4
  let one = s.map { $0 &+ 1 }.sink { sum.value &+= $0 }
  point("chain", 1, "OpenCombine", measure(scaled) { for i in 0..<scaled { s.send(i) } })
  one.cancel()
  let five = s.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .sink { sum.value &+= $0 }
  point("chain", 5, "OpenCombine", measure(scaled) { for i in 0..<scaled { s.send(i) } })
  five.cancel()
  let ten = s.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
  let twenty = ten.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .sink { sum.value &+= $0 }
  point("chain", 20, "OpenCombine", measure(scaled) { for i in 0..<scaled { s.send(i) } })
  twenty.cancel()
}

// combineLatest arity 2, 5, 10 (OpenCombine has none): round-robin sends, ns per event.
do {
  let p = (0..<10).map { _ in EventProducer<Int>() }
  let two = combineLatest(p[0], p[1]).observe { sum.value &+= $0.0 }
  point("combineLatest", 2, "Bond", measure(events) { for i in 0..<events { p[i % 2].next(i) } })
  two.dispose()
  let five = combineLatest(p[0], p[1], p[2], p[3], p[4]).observe { sum.value &+= $0.0 }
  point("combineLatest", 5, "Bond", measure(events) { for i in 0..<events { p[i % 5].next(i) } })
  five.dispose()
  let ten = combineLatest(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]).observe { sum.value &+= $0.0 }
  point("combineLatest", 10, "Bond", measure(events) { for i in 0..<events { p[i % 10].next(i) } })
  ten.dispose()
}
consume(sum.value)
lanesCurve()
concurrentMapCurve()
