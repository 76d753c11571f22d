// BondSoak [--short] [--events N] [--cycles M]
//
// Two threads send N events in all into a mixed operator graph (map, filter, skip, distinct,
// share, combineLatest, merge, switchToLatest, deliverOn, throttle) while M subscribe/dispose
// cycles run against the same producers. Checks that no event is lost (every count is exact) and
// that the memory allocated (jemalloc's `stats.allocated`) returns to its starting level.
import Bond
import CJemalloc
import Dispatch
import Foundation
import Synchronization

final class Count: Sendable {
  let value = Atomic<Int>(0)
  func add(_ n: Int = 1) { value.add(n, ordering: .relaxed) }
  var total: Int { value.load(ordering: .relaxed) }
}

func allocatedBytes() -> Int {
  // Writing "epoch" refreshes jemalloc's cached statistics.
  var oldEpoch: UInt64 = 0
  var newEpoch: UInt64 = 1
  var size = MemoryLayout<UInt64>.size
  _ = mallctl("epoch", &oldEpoch, &size, &newEpoch, size)
  var allocated = 0
  size = MemoryLayout<Int>.size
  guard mallctl("stats.allocated", &allocated, &size, nil, 0) == 0 else { return -1 }
  return allocated
}

func mebibytes(_ bytes: Int) -> String { String(format: "%.2f MiB", Double(bytes) / 1_048_576) }

var arguments = CommandLine.arguments.dropFirst()
var events = 100_000_000
var cycles = 10_000_000
while let argument = arguments.popFirst() {
  switch argument {
  case "--short":
    events = 2_000_000
    cycles = 200_000
  case "--events": events = Int(arguments.popFirst() ?? "") ?? events
  case "--cycles": cycles = Int(arguments.popFirst() ?? "") ?? cycles
  default:
    print("usage: BondSoak [--short] [--events N] [--cycles M]")
    exit(2)
  }
}

nonisolated(unsafe) var lastCycles = 0

/// One pass of the graph: `events` events from 2 threads, `cycles` subscribe/dispose cycles, every
/// count checked. Returns false when a count is wrong.
func soak(events: Int, cycles: Int) -> Bool {
  let source = EventProducer<Int>()
  let inner = EventProducer<Int>()
  let ok = soakGraph(source: source, inner: inner, events: events, cycles: cycles)
  // The graph is gone (its bag disposed, the shared producer released): nothing may observe.
  if source.observerCount != 0 || inner.observerCount != 0 {
    print("LEAK: \(source.observerCount + inner.observerCount) observations left")
    return false
  }
  return ok
}

func soakGraph(source: EventProducer<Int>, inner: EventProducer<Int>, events: Int, cycles: Int) -> Bool {
  let other = Observable(0)
  let queue = DispatchQueue(label: "soak.deliverOn")
  let plain = Count()
  let chained = Count()
  let shared = Count()
  let combined = Count()
  let merged = Count()
  let delivered = Count()
  let switched = Count()
  let throttled = Count()
  let churned = Count()
  let churnedSource = Count()
  let cyclesDone = Count()

  let bag = DisposeBag()
  source.observe { _ in plain.add() }.disposeIn(bag)
  source.map { $0 &* 3 }.filter { $0 & 1 == 0 }.skip(1).distinct().observe { _ in chained.add() }.disposeIn(bag)
  let sharedChain = source.map { $0 + 1 }.share()
  sharedChain.observe { _ in shared.add() }.disposeIn(bag)
  combineLatest(source, other).observe { _ in combined.add() }.disposeIn(bag)
  merge([source.map { $0 }, source.map { -$0 }]).observe { _ in merged.add() }.disposeIn(bag)
  source.deliverOn(queue).observe { _ in delivered.add() }.disposeIn(bag)
  source.throttle(seconds: 0.001, scheduler: queue).observe { _ in throttled.add() }.disposeIn(bag)
  let inners = EventProducer<EventProducer<Int>>()
  inners.switchToLatest().observe { _ in switched.add() }.disposeIn(bag)
  inners.next(inner)
  other.value = 1  // combineLatest has both values from here on

  let perThread = events / 2
  let group = DispatchGroup()
  for thread in 0..<2 {
    group.enter()
    Thread.detachNewThread {
      for i in 0..<perThread {
        source.next(thread &* perThread &+ i)
        // The churn: observers come and go on the same producers while events flow.
        if i % (Swift.max(1, perThread / Swift.max(1, cycles / 4))) == 0 {
          // Whether the other thread's events reach this observer between observe and dispose
          // is timing: counted, not checked. The `inner` observer gets this thread's `inner.next`.
          let observation = source.map { $0 }.observe { _ in churnedSource.add() }
          let second = inner.observe { _ in churned.add() }
          inner.next(i)
          observation.dispose()
          second.dispose()
          cyclesDone.add(2)  // two subscribe/dispose cycles
        }
      }
      group.leave()
    }
  }
  group.wait()
  let sent = perThread * 2
  // deliverOn drains in blocks that schedule their successor: wait for the last one (bounded).
  let deadline = Date().addingTimeInterval(60)
  while delivered.total < sent && Date() < deadline { usleep(1_000) }
  let expectations: [(String, Int, Int)] = [
    ("plain", plain.total, sent),
    ("share", shared.total, sent),
    ("combineLatest", combined.total, sent),  // `other` has a value before the first event
    ("merge", merged.total, 2 * sent),
    ("deliverOn", delivered.total, sent),
  ]
  var ok = true
  for (name, got, want) in expectations {
    if got != want {
      print("LOST: \(name) got \(got), expected \(want)")
      ok = false
    }
  }
  // Events are 0..<sent, each once: x*3 is even exactly when x is even; skip(1) drops the first of them.
  let evens = (sent + 1) / 2
  if chained.total != evens - 1 {
    print("LOST: chain got \(chained.total), expected \(evens - 1)")
    ok = false
  }
  if switched.total == 0 || throttled.total == 0 {
    print("no event through switchToLatest or throttle")
    ok = false
  }
  bag.dispose()
  if churned.total == 0 {
    print("no event reached the churning observers")
    ok = false
  }
  print(
    "  pass: \(sent) events, \(cyclesDone.total) subscribe/dispose cycles"
      + " (\(churnedSource.total) events reached a churning observer of the source)"
  )
  lastCycles = cyclesDone.total
  return ok
}

let start = Date()
// A first small pass warms up the runtime's caches (metadata, Dispatch's threads) before the baseline.
_ = soak(events: 20_000, cycles: 2_000)
let baseline = allocatedBytes()
let passed = soak(events: events, cycles: cycles)
Thread.sleep(forTimeInterval: 0.1)  // let Dispatch release its worker threads' buffers
let after = allocatedBytes()
let seconds = Date().timeIntervalSince(start)
let growth = after - baseline
print("events: \(events), subscribe/dispose cycles: \(lastCycles), duration: \(String(format: "%.1f", seconds)) s")
print("allocated at start: \(mebibytes(baseline)), at end: \(mebibytes(after)), growth: \(growth) bytes")
let bound = 1 << 20
if growth > bound { print("LEAK: allocated memory grew by more than \(bound) bytes") }
let success = passed && growth <= bound
print(success ? "soak: passed" : "soak: FAILED")
exit(success ? 0 : 1)
