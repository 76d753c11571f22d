// Runs one scenario for one engine, N events, for `valgrind --tool=callgrind` (perf/instructions).
// Instruction counts are deterministic: perf/instructions runs N and 2N events and reports the
// difference per event, so setup and process start-up cancel out.
//
//   BondInstructions SCENARIO ENGINE EVENTS [--time]      e.g. BondInstructions S1 Bond 100000
//
// With --time it prints the wall-clock ns per event (perf/allocators runs it under glibc malloc
// and under jemalloc; package-benchmark's malloc interposer cannot run with jemalloc preloaded).
import BenchWork
import Bond
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import OpenCombine

final class Sum { var value = 0 }

/// The floor's latest pair, shared by its two sources' closures. Touched by one send at a time (the
/// atomic pair): no runtime exclusivity check, as in Bond's sinks.
final class LatestPair {
  @exclusivity(unchecked) var pair = (0, 0)
  let observer: (Int, Int) -> Void
  init(_ observer: @escaping (Int, Int) -> Void) { self.observer = observer }
  func first(_ value: Int) {
    pair.0 = value
    observer(pair.0, pair.1)
  }
  func second(_ value: Int) {
    pair.1 = value
    observer(pair.0, pair.1)
  }
}

/// The baseline's observer, opaque to the optimizer (as a user's closure stored somewhere is): chosen
/// at run time from the command line, so the compiler cannot see which closure it calls.
func opaqueObserver(_ sum: Sum) -> (Int) -> Void {
  let choices: [(Int) -> Void] = [{ sum.value &+= $0 }, { sum.value &-= $0 }]
  return choices[CommandLine.arguments.count >= 4 ? 0 : 1]
}
func opaquePairObserver(_ sum: Sum) -> (Int, Int) -> Void {
  let choices: [(Int, Int) -> Void] = [{ sum.value &+= $0 &+ $1 }, { sum.value &-= $0 &+ $1 }]
  return choices[CommandLine.arguments.count >= 4 ? 0 : 1]
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let events = Int(arguments[3]) else {
  print(
    "usage: BondInstructions S1|send|S2|S4|S5|S6|S9|S11|S12a|S12d|S15 Bond|OpenCombine|closure|naive|floor EVENTS [--time]"
  )
  exit(2)
}
let timed = arguments.count == 5 && arguments[4] == "--time"
let started = DispatchTime.now().uptimeNanoseconds
let scenario = arguments[1]
let engine = arguments[2]
let sum = Sum()

switch (scenario, engine) {
case ("S1", "Bond"):
  let producer = EventProducer<Int>()
  let observation = producer.observe { sum.value &+= $0 }
  for i in 0..<events { producer.next(i) }
  observation.dispose()
case ("send", "Bond"):
  // S1 with `try await send(_:)` from a task instead of `next`: the async sender's own path (the
  // cancellation check, the writability check, the delivery), no stage and so no gate.
  let producer = EventProducer<Int>()
  let observation = producer.observe { sum.value &+= $0 }
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    for i in 0..<events { try? await producer.send(i) }
    done.signal()
  }
  done.wait()
  observation.dispose()
case ("S1", "OpenCombine"):
  let subject = PassthroughSubject<Int, Never>()
  let cancellable = subject.sink { sum.value &+= $0 }
  for i in 0..<events { subject.send(i) }
  cancellable.cancel()
case ("S1", "closure"):
  let opaque = opaqueObserver(sum)
  for i in 0..<events { opaque(i) }
case ("S1", "floor"), ("send", "floor"):
  // The floor of one serialized send: the closure call between the uncontended atomic pair.
  let floor = FloorSender(opaqueObserver(sum))
  for i in 0..<events { floor.send(i) }
case ("S2", "closure"):
  // The chain written by hand: the floor for map/filter/map.
  let opaque = opaqueObserver(sum)
  for i in 0..<events {
    let value = i + 1
    if value % 2 == 0 { opaque(value * 2) }
  }
case ("S2", "Bond"):
  let producer = EventProducer<Int>()
  let observation = producer.map { $0 + 1 }.filter { $0 % 2 == 0 }.map { $0 * 2 }.observe { sum.value &+= $0 }
  for i in 0..<events { producer.next(i) }
  observation.dispose()
case ("S2", "OpenCombine"):
  let subject = PassthroughSubject<Int, Never>()
  let cancellable = subject.map { $0 + 1 }.filter { $0 % 2 == 0 }.map { $0 * 2 }.sink { sum.value &+= $0 }
  for i in 0..<events { subject.send(i) }
  cancellable.cancel()
case ("S4", "Bond"), ("S15", "Bond"):
  // Two sources, sends alternating: combineLatest (S4) or zip (S15).
  let first = EventProducer<Int>()
  let second = EventProducer<Int>()
  let observation =
    scenario == "S4"
    ? combineLatest(first, second).observe { sum.value &+= $0 &+ $1 }
    : zip(first, second).observe { sum.value &+= $0 &+ $1 }
  for i in 0..<events { if i & 1 == 0 { first.next(i) } else { second.next(i) } }
  observation.dispose()
case ("S4", "closure"), ("S15", "closure"):
  let opaque = opaquePairObserver(sum)
  var latest = (0, 0)
  for i in 0..<events {
    if i & 1 == 0 { latest.0 = i } else { latest.1 = i }
    opaque(latest.0, latest.1)
  }
case ("S6", "Bond"):
  // switchToLatest: a new inner producer every 100 events (made inside the loop, as in the table).
  let outer = EventProducer<EventProducer<Int>>()
  let observation = outer.switchToLatest().observe { sum.value &+= $0 }
  var inner = EventProducer<Int>()
  for i in 0..<events {
    if i % 100 == 0 {
      inner = EventProducer<Int>()
      outer.next(inner)
    }
    inner.next(i)
  }
  observation.dispose()
case ("S6", "OpenCombine"):
  let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
  let cancellable = outer.switchToLatest().sink { sum.value &+= $0 }
  var inner = PassthroughSubject<Int, Never>()
  for i in 0..<events {
    if i % 100 == 0 {
      inner = PassthroughSubject<Int, Never>()
      outer.send(inner)
    }
    inner.send(i)
  }
  cancellable.cancel()
case ("S6", "closure"):
  // Switching = replacing the closure the events go to (a new closure context each time).
  var observer = opaqueObserver(sum)
  for i in 0..<events {
    if i % 100 == 0 {
      let base = opaqueObserver(sum)
      observer = { base($0) }
    }
    observer(i)
  }
case ("S11", "Bond"):
  // throttle's per-event cost: a window of an hour, so that no window ends during the run (under
  // valgrind a second-long window would end at a time that depends on the machine).
  let queue = DispatchQueue(label: "instructions.s11")
  let producer = EventProducer<Int>()
  let observation = producer.throttle(seconds: 3600, scheduler: queue).observe { sum.value &+= $0 }
  for i in 0..<events { producer.next(i) }
  observation.dispose()
case ("S11", "closure"):
  // The floor of a rate limiter: a closure call keeping the latest value.
  let opaque = opaqueObserver(sum)
  for i in 0..<events { opaque(i) }
case ("S4", "floor"), ("S15", "floor"):
  // The closure baseline with each source's send behind its atomic pair.
  let latest = LatestPair(opaquePairObserver(sum))
  let first = FloorSender { latest.first($0) }
  let second = FloorSender { latest.second($0) }
  for i in 0..<events { if i & 1 == 0 { first.send(i) } else { second.send(i) } }
case ("S5", "Bond"):
  // merge-8: round-robin sends into 8 producers.
  let sources = (0..<8).map { _ in EventProducer<Int>() }
  let observation = merge(sources).observe { sum.value &+= $0 }
  for i in 0..<events { sources[i & 7].next(i) }
  observation.dispose()
case ("S5", "closure"):
  let opaque = opaqueObserver(sum)
  let sources: [(Int) -> Void] = (0..<8).map { _ in { opaque($0) } }
  for i in 0..<events { sources[i & 7](i) }
case ("S5", "floor"):
  let opaque = opaqueObserver(sum)
  let sources = (0..<8).map { _ in FloorSender { opaque($0) } }
  for i in 0..<events { sources[i & 7].send(i) }
case ("S9", "Bond"):
  // Churn: one long-lived observer; per event, subscribe a second one and dispose it.
  let producer = EventProducer<Int>()
  let observation = producer.observe { sum.value &+= $0 }
  for i in 0..<events {
    let second = producer.observe { sum.value &+= $0 }
    producer.next(i)
    second.dispose()
  }
  observation.dispose()
case ("S9", "OpenCombine"):
  let subject = PassthroughSubject<Int, Never>()
  let cancellable = subject.sink { sum.value &+= $0 }
  for i in 0..<events {
    let second = subject.sink { sum.value &+= $0 }
    subject.send(i)
    second.cancel()
  }
  cancellable.cancel()
case ("S12a", "Bond"), ("S12d", "Bond"):
  // Appends to an observable array with one observer: of the array itself (S12a) or of its
  // filterElements view keeping the even elements (S12d).
  let array = ObservableArray<Int>()
  let onEvent: (ObservableArrayEvent<Int>) -> Void = { event in
    if case .insert(let elements, _) = event.operation { for element in elements { sum.value &+= element } }
  }
  let observation =
    scenario == "S12a" ? array.observe(onEvent) : array.filterElements { $0 & 1 == 0 }.observe(onEvent)
  for i in 0..<events { array.append(i) }
  observation.dispose()
case ("S12a", "naive"):
  // An array and a closure told of each insertion (what the benchmark's naive list sends).
  var array: [Int] = []
  let observers: [([Int], Int) -> Void] = [{ elements, _ in for element in elements { sum.value &+= element } }]
  for i in 0..<events {
    array.append(i)
    for observer in observers { observer([i], array.count - 1) }
  }
  consume(array.count)
default:
  print("n/a")
  exit(3)
}
if timed {
  let elapsed = DispatchTime.now().uptimeNanoseconds - started
  print(Double(elapsed) / Double(events))
}
consume(sum.value)
