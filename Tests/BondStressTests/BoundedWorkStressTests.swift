import Foundation
import Synchronization
import Testing
@testable import Bond

// Issue 17: no call is trapped delivering other threads' events. While another thread floods a
// producer, `dispose()` delivers no event, `observe` only its own registration and replay, and
// `next` at most `drainHandOffLimit` events queued by others; a worker delivers the rest, in order.
// Each bound is checked by a fact (which thread ran which delivery, during which call), never by a
// time. Run under `swift test --scratch-path .build-tsan --sanitize=thread --filter BoundedWorkStressTests`.

/// A thread that sends 0, 1, 2, ... to `producer` until `stop()`, then reports how many it sent.
private final class Flooder: @unchecked Sendable {
  // @unchecked: `sent` is written by the flooding thread before `done` is signalled, read after.
  private let stopped = Atomic<Bool>(false)
  private let progress = Atomic<Int>(0)
  private let done = DispatchSemaphore(value: 0)
  private var sent = 0

  /// Starts the flood and returns once 1,000 events are sent (the flood is under way).
  init(_ producer: EventProducer<Int>) {
    Thread.detachNewThread { [self] in
      var value = 0
      // relaxed: a stop request only; `done` orders `sent` for the reader.
      while !stopped.load(ordering: .relaxed) {
        producer.next(value)
        value += 1
        progress.store(value, ordering: .relaxed)
      }
      sent = value
      done.signal()
    }
    while progress.load(ordering: .relaxed) < 1_000 { usleep(100) }
  }

  /// Stops the flood and returns how many events were sent.
  func stop() -> Int {
    stopped.store(true, ordering: .relaxed)
    done.wait()
    return sent
  }
}

/// Records, for the calls the test thread makes, how many deliveries of the flood ran on the test
/// thread during each call. `inCall` is set by the test thread around each call; an observer
/// reads it only when it runs on the test thread (so the read is the test thread's own).
private final class CallProbe: @unchecked Sendable {
  // @unchecked: `inCall`, `current` and `counts` are touched only on the test thread.
  let testThread = currentThreadID()
  var inCall = false
  var current = 0
  var counts: [Int] = []

  /// Called by an observer of the flood: counts the delivery if it runs on the test thread inside
  /// a call.
  func delivered() {
    if currentThreadID() == testThread && inCall { current += 1 }
  }

  /// Runs `call` on the test thread and records how many flood deliveries ran inside it.
  func measure(_ call: () -> Void) {
    current = 0
    inCall = true
    call()
    inCall = false
    counts.append(current)
  }
}

@Suite struct BoundedWorkStressTests {
  /// The observer of the flood works ~1 µs per event, so a backlog builds up behind the holder.
  private static func work() {
    var x = 0
    for i in 0..<200 { x &+= i &* i }
    blackHole(x)
  }

  @Test func disposeDeliversNoEventWhileAnotherThreadFloods() {
    withWatchdog("disposeDeliversNoEventWhileAnotherThreadFloods", seconds: 120) {
      let producer = EventProducer<Int>()
      let probe = CallProbe()
      let slow = producer.observe { _ in
        probe.delivered()
        Self.work()
      }
      let flooder = Flooder(producer)
      for _ in 0..<(300 * stressScale) {
        let observation = producer.observe { _ in probe.delivered() }
        probe.measure { observation.dispose() }
      }
      let sent = flooder.stop()
      #expect(sent > 0)
      #expect(probe.counts.allSatisfy { $0 == 0 }, "dispose() delivered \(probe.counts.max() ?? 0) events of the flood")
      #expect(waitUntilIdle(producer))
      slow.dispose()
      #expect(producer.observerCount == 0)
    }
  }

  @Test func observeDeliversOnlyItsOwnReplayWhileAnotherThreadFloods() {
    withWatchdog("observeDeliversOnlyItsOwnReplayWhileAnotherThreadFloods", seconds: 120) {
      let producer = EventProducer<Int>(replayLength: 2)
      let probe = CallProbe()
      // Counts every delivery of the flood to this observer on the test thread during a call.
      let slow = producer.observe { _ in
        probe.delivered()
        Self.work()
      }
      let flooder = Flooder(producer)
      var replays: [[Int]] = []
      for _ in 0..<(300 * stressScale) {
        let seen = Recorder<Int>()
        var observation: (any DisposableType)?
        probe.measure { observation = producer.observe { seen.add($0) } }
        observation?.dispose()
        replays.append(seen.items)
      }
      let sent = flooder.stop()
      #expect(sent > 0)
      #expect(probe.counts.allSatisfy { $0 == 0 }, "observe delivered \(probe.counts.max() ?? 0) events to another observer")
      for run in replays where !run.isEmpty {
        #expect(run == Array(run.first!...run.last!), "the replay and what followed: contiguous, in order")
      }
      #expect(waitUntilIdle(producer))
      slow.dispose()
    }
  }

  @Test func nextDeliversABoundedShareOfOtherThreadsWork() {
    withWatchdog("nextDeliversABoundedShareOfOtherThreadsWork", seconds: 120) {
      let producer = EventProducer<Int>()
      let probe = CallProbe()
      let delivered = Counter()
      let slow = producer.observe { _ in
        probe.delivered()
        delivered.increment()
        Self.work()
      }
      let flooder = Flooder(producer)
      let calls = 2_000 * stressScale
      for _ in 0..<calls {
        probe.measure { producer.next(-1) }
      }
      let sent = flooder.stop()
      // Its own event, plus at most the budget of others' (and the few pushed ahead of its own by
      // a thread between its push and its count: here one flooder).
      let bound = drainHandOffLimit + 2
      #expect(probe.counts.allSatisfy { $0 <= bound }, "a next delivered \(probe.counts.max() ?? 0) events (bound \(bound))")
      #expect(waitUntil { delivered.count == sent + calls }, "every event delivered: \(delivered.count) of \(sent + calls)")
      slow.dispose()
    }
  }

  /// The subscription loops that never returned while another thread sent (issue 17): `first()`
  /// and an operator chain, observed and disposed again and again during a flood that stops only
  /// once the loop is over. Under the old drain, the loop's thread delivered the flood forever.
  @Test func subscriptionLoopsReturnWhileAnotherThreadFloods() {
    withWatchdog("subscriptionLoopsReturnWhileAnotherThreadFloods", seconds: 120) {
      let producer = EventProducer<Int>()
      let slow = producer.observe { _ in Self.work() }
      let flooder = Flooder(producer)
      let firsts = Counter()
      for _ in 0..<(200 * stressScale) {
        producer.first().observe { _ in firsts.increment() }.dispose()
        producer.map { $0 * 2 }.filter { $0 >= 0 }.observe { _ in }.dispose()
      }
      _ = flooder.stop()
      #expect(waitUntilIdle(producer))
      slow.dispose()
      #expect(producer.observerCount == 0)
    }
  }

  /// The worker keeps the guarantees: with three flooding threads and a holder that keeps handing
  /// off, every event arrives once, each thread's in order, never two deliveries at once.
  @Test func handedOffWorkKeepsOrderAndNeverOverlaps() {
    withWatchdog("handedOffWorkKeepsOrderAndNeverOverlaps", seconds: 120) {
      let producer = EventProducer<Int>()
      let overlap = OverlapDetector()
      let progress = DeliveryProgress()
      var received: [[Int]] = Array(repeating: [], count: 3)  // touched only by deliveries
      let observation = producer.observe { value in
        overlap.enter()
        received[value % 3].append(value / 3)
        if value % 64 == 0 { Self.work() }
        overlap.leave()
        progress.advance()
      }
      let perThread = 20_000 * stressScale
      runTogether(threads: 3) { thread in
        for sequence in 0..<perThread { producer.next(sequence * 3 + thread) }
      }
      #expect(progress.wait(for: 3 * perThread))
      observation.dispose()
      #expect(overlap.count == 0)
      for thread in 0..<3 { #expect(received[thread] == Array(0..<perThread)) }
    }
  }

  /// An ObservableArray's mutating call hands off the same way: every change reaches a mirror.
  @Test func observableArrayMutationsHandOffUnderAFlood() {
    withWatchdog("observableArrayMutationsHandOffUnderAFlood", seconds: 120) {
      let array = ObservableArray<Int>()
      let count = Atomic<Int>(0)
      let observation = array.observe { event in
        // relaxed: read after waitUntilIdle, which orders it.
        count.store(event.sequence.count, ordering: .relaxed)
        Self.work()
      }
      let perThread = 5_000 * stressScale
      runTogether(threads: 3) { thread in
        for value in 0..<perThread { array.append(thread * 1_000_000 + value) }
      }
      #expect(waitUntilIdle(array))
      #expect(count.load(ordering: .relaxed) == 3 * perThread)
      observation.dispose()
    }
  }
}

/// Keeps `value` from being optimized away.
@inline(never)
private func blackHole<T>(_ value: T) {}
