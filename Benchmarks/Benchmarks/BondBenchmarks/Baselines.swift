// The two baselines, for every scenario:
// (a) `closure`: a plain Swift closure call per event (hidden from the optimizer by `opaque`),
//     doing the scenario's work by hand: the physical floor.
// (b) `naive`: `NaiveSubject`, a `[(Int) -> Void]` observer list in a final class, composed the
//     way a hand-written observer pattern composes (one subject per stage, no locks unless the
//     scenario is concurrent).

import Benchmark
import Dispatch
import Synchronization

func registerBaselines() {
  registerBaselineS1()
  registerBaselineS2()
  registerBaselineS3()
  registerBaselineS4()
  registerBaselineS5()
  registerBaselineS6()
  registerBaselineS7()
  registerBaselineS8()
  registerBaselineS9()
  registerBaselineS9b()
  registerBaselineS10()
  registerBaselineS11()
  registerBaselineS12()
}

// MARK: S1 send-1

private func registerBaselineS1() {
  register(.s1, .closure) { benchmark in
    let sink = Sink()
    let observer: (Int) -> Void = opaque { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { observer(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s1, .naive) { benchmark in
    let sink = Sink()
    let subject = NaiveSubject<Int>()
    subject.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { subject.send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}

// MARK: S2 chain: map {$0+1} -> filter {even} -> map {$0*2}

private func registerBaselineS2() {
  register(.s2, .closure) { benchmark in
    let sink = Sink()
    // The chain fused by hand into one closure.
    let observer: (Int) -> Void = opaque { value in
      let plusOne = value + 1
      if plusOne % 2 == 0 { sink.sum &+= plusOne * 2 }
    }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { observer(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s2, .naive) { benchmark in
    let sink = Sink()
    // One subject per stage, as a naive operator implementation chains them.
    let source = NaiveSubject<Int>()
    let mapped = NaiveSubject<Int>()
    let filtered = NaiveSubject<Int>()
    source.observe { mapped.send($0 + 1) }
    mapped.observe { if $0 % 2 == 0 { filtered.send($0) } }
    filtered.observe { sink.sum &+= $0 * 2 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { source.send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}

// MARK: S3 fanout-10

private func registerBaselineS3() {
  register(.s3, .closure) { benchmark in
    let sink = Sink()
    let o0: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o1: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o2: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o3: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o4: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o5: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o6: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o7: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o8: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o9: (Int) -> Void = opaque { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      o0(i)
      o1(i)
      o2(i)
      o3(i)
      o4(i)
      o5(i)
      o6(i)
      o7(i)
      o8(i)
      o9(i)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s3, .naive) { benchmark in
    let sink = Sink()
    let subject = NaiveSubject<Int>()
    for _ in 0..<10 { subject.observe { sink.sum &+= $0 } }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { subject.send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}

// MARK: S4 combine-latest

/// The latest value of each side of a hand-written combineLatest.
private final class LatestPair {
  var first: Int?
  var second: Int?
}

private func registerBaselineS4() {
  register(.s4, .closure) { benchmark in
    let sink = Sink()
    let latest = LatestPair()
    let observer: ((Int, Int)) -> Void = opaque { pair in sink.sum &+= pair.0 &+ pair.1 }
    let onFirst: (Int) -> Void = opaque { value in
      latest.first = value
      if let second = latest.second { observer((value, second)) }
    }
    let onSecond: (Int) -> Void = opaque { value in
      latest.second = value
      if let first = latest.first { observer((first, value)) }
    }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      if i & 1 == 0 { onFirst(i) } else { onSecond(i) }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s4, .naive) { benchmark in
    let sink = Sink()
    let latest = LatestPair()
    let first = NaiveSubject<Int>()
    let second = NaiveSubject<Int>()
    let combined = NaiveSubject<(Int, Int)>()
    first.observe { value in
      latest.first = value
      if let other = latest.second { combined.send((value, other)) }
    }
    second.observe { value in
      latest.second = value
      if let other = latest.first { combined.send((other, value)) }
    }
    combined.observe { pair in sink.sum &+= pair.0 &+ pair.1 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      if i & 1 == 0 { first.send(i) } else { second.send(i) }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}

// MARK: S5 merge-8

private func registerBaselineS5() {
  register(.s5, .closure) { benchmark in
    let sink = Sink()
    let observer: (Int) -> Void = opaque { sink.sum &+= $0 }
    // One forwarding closure per source, each calling the one observer.
    let sources: [(Int) -> Void] = (0..<8).map { _ in opaque { observer($0) } }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { sources[i & 7](i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s5, .naive) { benchmark in
    let sink = Sink()
    let merged = NaiveSubject<Int>()
    merged.observe { sink.sum &+= $0 }
    let sources = (0..<8).map { _ in NaiveSubject<Int>() }
    for source in sources { source.observe { merged.send($0) } }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { sources[i & 7].send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}

// MARK: S6 switch-latest (a new inner every 100 events)

/// The current inner subscription of the hand-written switchToLatest.
private final class CurrentInner {
  var subject: NaiveSubject<Int>?
  var token = 0
  var observer: (Int) -> Void = { _ in }
}

private func registerBaselineS6() {
  register(.s6, .closure) { benchmark in
    let sink = Sink()
    let current = CurrentInner()
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      // Switching = replacing the closure the events go to (a new closure context each time).
      if i % 100 == 0 { current.observer = opaque { sink.sum &+= $0 } }
      current.observer(i)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s6, .naive) { benchmark in
    let sink = Sink()
    let current = CurrentInner()
    let outer = NaiveSubject<NaiveSubject<Int>>()
    outer.observe { inner in
      current.subject?.remove(current.token)
      current.subject = inner
      current.token = inner.observe { sink.sum &+= $0 }
    }
    benchmark.startMeasurement()
    var inner = NaiveSubject<Int>()
    for i in benchmark.scaledIterations {
      if i % 100 == 0 {
        inner = NaiveSubject<Int>()
        outer.send(inner)
      }
      inner.send(i)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}

// MARK: S7 deliver-on (end to end: send 1M, wait until all arrived)

/// Counts arrivals and signals when the last one has arrived. Used by every engine's S7.
final class ArrivalCounter: @unchecked Sendable {
  // @unchecked Sendable: `sum` and `count` are touched only by the serial delivery queue
  // (or the single consumer task); the benchmark reads `sum` after `done.wait()`.
  var sum = 0
  var count = 0
  let expected: Int
  let done = DispatchSemaphore(value: 0)

  init(expected: Int) { self.expected = expected }

  @inline(__always)
  func receive(_ value: Int) {
    sum &+= value
    count += 1
    if count == expected { done.signal() }
  }
}

/// A hand-written batching `deliverOn`: events go into a locked buffer; the first event into an
/// empty buffer schedules one drain on the queue.
private final class NaiveDeliverOn: @unchecked Sendable {
  // @unchecked Sendable: `pending` is guarded by the mutex; `spare` is touched only inside
  // `drain`, which runs on the serial queue.
  private let queue: DispatchQueue
  private let pending = Mutex<(buffer: [Int], scheduled: Bool)>(([], false))
  private var spare: [Int] = []
  private let observer: (Int) -> Void

  init(queue: DispatchQueue, observer: @escaping (Int) -> Void) {
    self.queue = queue
    self.observer = observer
  }

  func send(_ value: Int) {
    let schedule = pending.withLock { state in
      state.buffer.append(value)
      if state.scheduled { return false }
      state.scheduled = true
      return true
    }
    // Scheduled after unlocking: never call out while holding the lock.
    if schedule { queue.async { self.drain() } }
  }

  private func drain() {
    var batch = spare
    pending.withLock { state in
      swap(&state.buffer, &batch)
      state.scheduled = false
    }
    for value in batch { observer(value) }
    batch.removeAll(keepingCapacity: true)
    spare = batch
  }
}

private func registerBaselineS7() {
  register(.s7, .closure) { benchmark in
    // One `queue.async` per event: the unbatched hop.
    let queue = DispatchQueue(label: "bench.s7.closure")
    let counter = ArrivalCounter(expected: million)
    let observer = UncheckedBox<(Int) -> Void>(opaque { counter.receive($0) })
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { queue.async { observer.value(i) } }
    counter.done.wait()
    benchmark.stopMeasurement()
    blackHole(counter.sum)
  }
  register(.s7, .naive) { benchmark in
    let queue = DispatchQueue(label: "bench.s7.naive")
    let counter = ArrivalCounter(expected: million)
    let subject = NaiveSubject<Int>()
    let deliver = NaiveDeliverOn(queue: queue) { counter.receive($0) }
    subject.observe { deliver.send($0) }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { subject.send(i) }
    counter.done.wait()
    benchmark.stopMeasurement()
    blackHole(counter.sum)
  }
}

// MARK: S8 replay-subscribe (per subscription: subscribe, receive the replay of 16, dispose)

private func registerBaselineS8() {
  register(.s8, .closure, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let replay = Array(0..<16)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      // A new escaping observer, called on the 16 buffered values.
      let observer: (Int) -> Void = opaque { sink.sum &+= $0 }
      for value in replay { observer(value) }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s8, .naive, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let subject = NaiveSubject<Int>(replayLength: 16)
    for i in 0..<32 { subject.send(i) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let token = subject.observe { sink.sum &+= $0 }
      subject.remove(token)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}

// MARK: S9 churn (per subscription: subscribe a second observer, dispose it)

private func registerBaselineS9() {
  register(.s9, .closure, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    var slot: ((Int) -> Void)?
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      // Registering = storing a new escaping closure; disposing = dropping it.
      slot = opaque { sink.sum &+= $0 }
      slot = opaque(nil)
    }
    benchmark.stopMeasurement()
    blackHole(slot)
    blackHole(sink.sum)
  }
  register(.s9, .naive, events: subscriptionsPerIteration) { benchmark in
    let sink = Sink()
    let subject = NaiveSubject<Int>()
    subject.observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let token = subject.observe { sink.sum &+= $0 }
      subject.remove(token)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}

// MARK: S9b dispose-under-slow-observer (per disposal, while another thread delivers to a slow observer)

// closure: n/a (one closure has no observer to dispose while another is delivering).
private func registerBaselineS9b() {
  register(.s9b, .naive, events: disposalsPerIteration) { benchmark in
    // The naive list holds its lock while calling observers (as in S10): a removal waits for the
    // delivery in flight (Synchronization's Mutex hands the lock over on Linux: no starvation).
    let sink = Sink()
    let sender = SlowObserverSender()
    let subject = NaiveSubject<Int>()
    subject.observe { sender.slowObserver($0) }
    let tokens = (0..<disposalsPerIteration).map { _ in subject.observe { sink.sum &+= $0 } }
    let serialized = Serialized(subject)
    sender.start { i in serialized.lock.withLock { _ in serialized.target.send(i) } }
    benchmark.startMeasurement()
    for token in tokens { serialized.lock.withLock { _ in serialized.target.remove(token) } }
    benchmark.stopMeasurement()
    sender.stop()
    blackHole(sink.sum)
  }
}

// MARK: S10 concurrent-send (2 threads x 500k into one producer, 1 observer)

/// A lock and what it serializes, shared by the two sending threads.
private final class Serialized<Target>: @unchecked Sendable {
  // @unchecked Sendable: `target` is used only inside `lock.withLock`.
  let lock = Mutex<Void>(())
  let target: Target
  init(_ target: Target) { self.target = target }
}

private func registerBaselineS10() {
  register(.s10, .closure) { benchmark in
    let sink = Sink()
    let serialized = Serialized<(Int) -> Void>(opaque { sink.sum &+= $0 })
    let perThread = million / 2
    benchmark.startMeasurement()
    runConcurrently(threads: 2) { _ in
      for i in 0..<perThread { serialized.lock.withLock { _ in serialized.target(i) } }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s10, .naive) { benchmark in
    // The naive list holds its lock while calling observers.
    let sink = Sink()
    let subject = NaiveSubject<Int>()
    subject.observe { sink.sum &+= $0 }
    let serialized = Serialized(subject)
    let perThread = million / 2
    benchmark.startMeasurement()
    runConcurrently(threads: 2) { _ in
      for i in 0..<perThread { serialized.lock.withLock { _ in serialized.target.send(i) } }
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}

// MARK: S11 throttle (1M events into throttle(seconds: 1) on a DispatchQueue)

/// A hand-written Bond-style throttle: an event opens a 1 s window; at its end the latest event
/// is delivered on the queue.
private final class NaiveThrottle: @unchecked Sendable {
  // @unchecked Sendable: the state is guarded by the mutex; `observer` runs only on `queue`.
  private let state = Mutex<(latest: Int, open: Bool)>((0, false))
  private let queue: DispatchQueue
  private let observer: (Int) -> Void

  init(queue: DispatchQueue, observer: @escaping (Int) -> Void) {
    self.queue = queue
    self.observer = observer
  }

  func send(_ value: Int) {
    let opens = state.withLock { state in
      state.latest = value
      if state.open { return false }
      state.open = true
      return true
    }
    // Scheduled after unlocking: never call out while holding the lock.
    if opens {
      queue.asyncAfter(deadline: .now() + 1) { [weak self] in self?.closeWindow() }
    }
  }

  private func closeWindow() {
    let latest = state.withLock { state in
      state.open = false
      return state.latest
    }
    observer(latest)
  }
}

private func registerBaselineS11() {
  register(.s11, .closure) { benchmark in
    // The floor of a rate limiter: one closure call per event that keeps the latest value.
    let sink = Sink()
    let observer: (Int) -> Void = opaque { sink.sum = $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { observer(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s11, .naive) { benchmark in
    let sink = Sink()
    let queue = DispatchQueue(label: "bench.s11.naive")
    let subject = NaiveSubject<Int>()
    let throttle = NaiveThrottle(queue: queue) { sink.sum &+= $0 }
    subject.observe { throttle.send($0) }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { subject.send(i) }
    benchmark.stopMeasurement()
    blackHole(queue.sync { sink.sum })
  }
}

// MARK: S12 observable-array

/// The shape of an array change a naive observable array sends (like Bond's, without batches).
enum NaiveArrayOperation {
  case insert(elements: [Int], fromIndex: Int)
  case reset([Int])
}

/// A naive observable array: an array plus a naive observer list of its operations.
private final class NaiveArray {
  private(set) var array: [Int] = []
  let changes = NaiveSubject<NaiveArrayOperation>()

  func append(_ element: Int) {
    array.append(element)
    changes.send(.insert(elements: [element], fromIndex: array.count - 1))
  }
}

/// 10 replaces per iteration of a 10k-element array, 1% of the elements changed each time.
let diffArraySize = 10_000
let diffReplacesPerIteration = 10
/// S12b counts compared elements as its events: 10 x 10k per iteration.
let diffEventsPerIteration = diffArraySize * diffReplacesPerIteration
let s12AppendsPerIteration = 100_000

/// The two arrays S12b alternates between: `base`, and `base` with every 100th element changed.
let diffArrays: (base: [Int], changed: [Int]) = {
  let base = Array(0..<diffArraySize)
  var changed = base
  for index in stride(from: 0, to: diffArraySize, by: 100) { changed[index] = -index - 1 }
  return (base, changed)
}()

private func registerBaselineS12() {
  register(.s12a, .closure, events: s12AppendsPerIteration) { benchmark in
    let sink = Sink()
    let observer: (Int) -> Void = opaque { sink.sum &+= $0 }
    var array: [Int] = []
    benchmark.startMeasurement()
    for i in 0..<s12AppendsPerIteration {
      array.append(i)
      observer(i)
    }
    benchmark.stopMeasurement()
    blackHole(array)
    blackHole(sink.sum)
  }
  register(.s12a, .naive, events: s12AppendsPerIteration) { benchmark in
    let sink = Sink()
    let array = NaiveArray()
    array.changes.observe { operation in
      if case .insert(let elements, _) = operation {
        for element in elements { sink.sum &+= element }
      }
    }
    benchmark.startMeasurement()
    for i in 0..<s12AppendsPerIteration { array.append(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
  register(.s12b, .closure, events: diffEventsPerIteration) { benchmark in
    // The standard library's diff (`difference(from:)`) of the same arrays.
    let sink = Sink()
    var current = diffArrays.base
    benchmark.startMeasurement()
    for replace in 0..<diffReplacesPerIteration {
      let next = replace & 1 == 0 ? diffArrays.changed : diffArrays.base
      let difference = next.difference(from: current)
      sink.sum &+= difference.count
      current = next
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}
