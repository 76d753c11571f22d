// S7 deliver-on: producer -> delivery on a serial DispatchQueue -> observer; 1M events (the peers
// 100k), timed until the last one has arrived (end to end). OpenCombine: `receive(on:)`;
// AsyncAlgorithms: an unbounded AsyncStream drained by a consumer task; closure: one `queue.async`
// per event (the unbatched hop); naive: a hand-written batching buffer.

import AsyncAlgorithms
import Benchmark
import Bond
import Dispatch
import OpenCombine
import OpenCombineDispatch
import Synchronization

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

/// Bond's S7 and S7d: 1M events through `deliverOn(scheduler)`, timed until the last one arrived.
func measureDeliverOn<S: Bond.Scheduler>(_ benchmark: Benchmark, on scheduler: S) {
  let counter = ArrivalCounter(expected: million)
  let producer = EventProducer<Int>()
  let disposable = producer.deliverOn(scheduler).observe { counter.receive($0) }
  benchmark.startMeasurement()
  for i in benchmark.scaledIterations { producer.next(i) }
  counter.done.wait()
  benchmark.stopMeasurement()
  disposable.dispose()
  blackHole(counter.sum)
}

/// The closure engine of S7 and S7d: one `schedule` per event on `scheduler` (the unbatched hop).
func measureHopPerEvent<S: Bond.Scheduler>(_ benchmark: Benchmark, on scheduler: S) {
  let counter = ArrivalCounter(expected: million)
  let observer = UncheckedBox<(Int) -> Void>(opaque { counter.receive($0) })
  benchmark.startMeasurement()
  for i in benchmark.scaledIterations { scheduler.schedule { observer.value(i) } }
  counter.done.wait()
  benchmark.stopMeasurement()
  blackHole(counter.sum)
}

func registerDeliverOn() {
  let events = peerEventsPerIteration

  register("S7", .bond) { benchmark in
    measureDeliverOn(benchmark, on: DispatchQueue(label: "bench.s7.bond"))
  }

  // S7 deliver-on: receive(on: DispatchQueue)
  register("S7", .openCombine, events: events) { benchmark in
    let queue = DispatchQueue(label: "bench.s7.opencombine")
    let counter = ArrivalCounter(expected: events)
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.receive(on: queue.ocombine).sink { counter.receive($0) }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    counter.done.wait()
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(counter.sum)
  }

  // S7 deliver-on: AsyncStream (unbounded) + a consumer task; yield never suspends.
  registerAsync("S7", .asyncAlgorithms, events: events) { benchmark in
    let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
    let consumer = Task {
      var sum = 0
      for await value in stream { sum &+= value }
      return sum
    }
    benchmark.startMeasurement()
    for i in 0..<events { continuation.yield(i) }
    continuation.finish()
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  register("S7", .closure) { benchmark in
    // One `queue.async` per event: the unbatched hop.
    measureHopPerEvent(benchmark, on: DispatchQueue(label: "bench.s7.closure"))
  }

  register("S7", .naive) { benchmark in
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
