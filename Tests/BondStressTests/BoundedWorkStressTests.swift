import Foundation
import Synchronization
import Testing
@testable import Bond

// Issue 17: no call is trapped delivering other threads' events. While another thread floods a
// producer, `dispose()` delivers no event, `observe` only its own registration and replay, and
// `next` at most `drainHandOffLimit` events queued by others; the next sender or a worker delivers
// the rest, in order.
// Each bound is checked by a fact (which thread ran which delivery, during which call), never by a
// time. Run under `swift test --scratch-path .build-tsan --sanitize=thread --filter BoundedWorkStressTests`.

/// A thread that sends 0, 1, 2, ... to a producer while not paused, at most `maxAhead` events
/// ahead of their delivery (so the backlog, and the test's memory, stay bounded).
///
/// A test pauses it, flushes the producer, and makes a call that takes the delivery
/// rights and, while it holds them, lets the flood queue 2,000 events behind it
/// (``resumeAndWaitForQueued(_:)``). Under the old drain that call then delivered the whole flood.
private final class Flooder: @unchecked Sendable {
  // @unchecked: `sentTotal` is written by the flooding thread before `done` is signalled, read after.
  private let stopped = Atomic<Bool>(false)
  private let paused = Atomic<Bool>(true)
  private let pauseSeen = Atomic<Bool>(true)
  private let sent = Atomic<Int>(0)
  /// Incremented by the flood's observer (``delivered()``).
  private let deliveredCount = Atomic<Int>(0)
  private let done = DispatchSemaphore(value: 0)
  private var sentTotal = 0
  let maxAhead: Int

  init(_ producer: EventProducer<Int>, maxAhead: Int = 4_096) {
    self.maxAhead = maxAhead
    Thread.detachNewThread { [self] in
      var value = 0
      // All relaxed or acquiring/releasing pairs as noted; `done` orders `sentTotal` for the reader.
      while !stopped.load(ordering: .relaxed) {
        // acquiring/releasing: pause() reads `pauseSeen` after this thread's last send.
        if paused.load(ordering: .acquiring) {
          pauseSeen.store(true, ordering: .releasing)
          usleep(50)
          continue
        }
        pauseSeen.store(false, ordering: .releasing)
        if value - deliveredCount.load(ordering: .relaxed) >= maxAhead {
          sched_yield()
          continue
        }
        producer.next(value)
        value += 1
        sent.store(value, ordering: .relaxed)
      }
      sentTotal = value
      done.signal()
    }
  }

  /// Called by the flood's observer for each event.
  func delivered() { deliveredCount.add(1, ordering: .relaxed) }

  /// Stops sending, and returns once the flooding thread has seen it (its last `next` returned).
  func pause() {
    paused.store(true, ordering: .releasing)
    while !pauseSeen.load(ordering: .acquiring) { usleep(20) }
  }

  /// Lets the flood go on and waits (up to 10 s) until it has sent `count` more events: called
  /// while the caller holds the delivery rights, so they are queued behind it.
  func resumeAndWaitForQueued(_ count: Int) {
    let start = sent.load(ordering: .relaxed)
    pauseSeen.store(false, ordering: .releasing)
    paused.store(false, ordering: .releasing)
    let deadline = Date().addingTimeInterval(10)
    while sent.load(ordering: .relaxed) < start + count && Date() < deadline { usleep(20) }
  }

  /// Stops the flood and returns how many events were sent.
  func stop() -> Int {
    stopped.store(true, ordering: .relaxed)
    done.wait()
    return sentTotal
  }
}

/// Records, for the calls the test makes that take the delivery rights, how many deliveries of the
/// flood ran on the test's thread during each call. The test is async: after each `await` it may
/// resume on another thread, so the probe takes the thread of each call when the call starts.
/// `inCall` is set by the test around each call; an observer reads it only when it runs on the
/// calling thread (so the read is that thread's own).
private final class CallProbe: @unchecked Sendable {
  // @unchecked: `inCall`, `triggered`, `current` and `counts` are touched only by the test, on the
  // calling thread.
  /// The thread of the call being measured, 0 outside a call.
  private let caller = Atomic<UInt>(0)
  var inCall = false
  var triggered = false
  var current = 0
  var counts: [Int] = []

  /// Whether the caller runs on the thread of the call being measured.
  ///
  /// relaxed: only the calling thread can find its own ID here, and it reads its own last store;
  /// a thread that measured an earlier call stored 0 after it, so coherence keeps it from seeing
  /// its older ID again.
  var onTestThread: Bool { caller.load(ordering: .relaxed) == currentThreadID() }

  /// Called by an observer of the flood: counts the delivery if it runs on the test's thread inside
  /// a call.
  func delivered() {
    if onTestThread && inCall { current += 1 }
  }

  /// Runs `action` (it lets the flood queue events behind the call) if the caller runs on the
  /// thread of the call being measured: there, the call holds the delivery rights.
  func trigger(_ action: () -> Void) {
    guard onTestThread else { return }
    triggered = true
    action()
  }

  /// Runs `call` on the current thread. If the call took the delivery rights (``trigger(_:)`` ran
  /// inside it), records how many flood deliveries ran inside it and returns `true`; a call that
  /// found the rights still held records nothing.
  @discardableResult
  func measure(_ call: () -> Void) -> Bool {
    caller.store(currentThreadID(), ordering: .relaxed)
    current = 0
    triggered = false
    inCall = true
    call()
    inCall = false
    if triggered { counts.append(current) }
    caller.store(0, ordering: .relaxed)
    return triggered
  }

  /// ``measure(_:)`` on a thread of its own, started after the test's `flush()`: when `flush()`
  /// returns, the thread that performed its barrier may still hold the delivery rights for a
  /// moment (it resumes the test's task before it lets them go, and the task resumes at once on
  /// another thread), so a call made at once by the test's task would often find them held. The
  /// join orders the probe's writes before the test reads them.
  func measureOnAThread(_ call: @escaping @Sendable () -> Void) -> Bool {
    let measured = Locked(false)
    runTogether(threads: 1) { _ in
      let took = self.measure(call)
      measured.withLock { $0 = took }
    }
    return measured.value
  }
}

/// Runs `action` when deallocated: captured by an observer, it runs when the observer's closure is
/// released (by `dispose()` itself when the producer is idle).
private final class OnRelease: @unchecked Sendable {
  let action: () -> Void
  init(_ action: @escaping () -> Void) { self.action = action }
  deinit { action() }
}

@Suite struct BoundedWorkStressTests {
  /// The observer of the flood works ~1 µs per event, so a backlog builds up behind the holder.
  private static func work() {
    var x = 0
    for i in 0..<200 { x &+= i &* i }
    blackHole(x)
  }

  /// The flood and its ~1 µs observer, with a probe of what each measured call delivers.
  private static func flood(replayLength: Int = 0) -> (EventProducer<Int>, Flooder, CallProbe, any DisposableType) {
    let producer = EventProducer<Int>(replayLength: replayLength)
    let probe = CallProbe()
    let flooder = Flooder(producer)
    let slow = producer.observe { value in
      guard value >= 0 else { return }
      probe.delivered()
      flooder.delivered()
      Self.work()
    }
    return (producer, flooder, probe, slow)
  }

  private static var rounds: Int { 40 * stressScale }

  /// Runs `round` until `rounds` calls have been measured (each took the delivery rights, see
  /// ``CallProbe/measureOnAThread(_:)``), at most 20 times as many rounds.
  private static func untilMeasured(_ probe: CallProbe, _ round: () async -> Void) async {
    var attempts = 0
    while probe.counts.count < rounds && attempts < 20 * rounds {
      attempts += 1
      await round()
    }
    #expect(probe.counts.count == rounds, "\(probe.counts.count) of \(attempts) calls took the delivery rights")
  }

  @Test func disposeDeliversNoEventWhileAnotherThreadFloods() async {
    await withWatchdog("disposeDeliversNoEventWhileAnotherThreadFloods", seconds: 120) {
      let (producer, flooder, probe, slow) = Self.flood()
      await Self.untilMeasured(probe) {
        // The closure's release, inside dispose() on an idle producer, lets the flood queue 2,000
        // events behind the disposing thread, which holds the rights. Only the closure holds it
        // (a local would keep it alive to the end of the round).
        let resume = { flooder.resumeAndWaitForQueued(2_000) }
        let observation = producer.observe { [hold = OnRelease { probe.trigger(resume) }] _ in
          withExtendedLifetime(hold) {}
        }
        flooder.pause()
        await producer.flush()
        _ = probe.measureOnAThread { observation.dispose() }
      }
      _ = flooder.stop()
      #expect(probe.counts.allSatisfy { $0 == 0 }, "dispose() delivered \(probe.counts.max() ?? 0) events of the flood")
      await producer.flush()
      slow.dispose()
      #expect(producer.observerCount == 0)
    }
  }

  @Test func observeDeliversOnlyItsOwnReplayWhileAnotherThreadFloods() async {
    await withWatchdog("observeDeliversOnlyItsOwnReplayWhileAnotherThreadFloods", seconds: 120) {
      let (producer, flooder, probe, slow) = Self.flood(replayLength: 1)
      producer.next(-1)
      var replays: [[Int]] = []
      await Self.untilMeasured(probe) {
        flooder.pause()
        await producer.flush()
        let seen = Recorder<Int>()
        let observation = Locked<(any DisposableType)?>(nil)
        let measured = probe.measureOnAThread {
          var first = true
          // Its replay, on this thread, lets the flood queue 2,000 events behind it.
          let registered = producer.observe { value in
            if first { probe.trigger { flooder.resumeAndWaitForQueued(2_000) } }
            first = false
            seen.add(value)
          }
          observation.withLock { $0 = registered }
        }
        flooder.pause()
        await producer.flush()
        observation.value?.dispose()
        if measured { replays.append(seen.items) }
      }
      _ = flooder.stop()
      #expect(
        probe.counts.allSatisfy { $0 == 0 },
        "observe delivered \(probe.counts.max() ?? 0) events to another observer"
      )
      for run in replays {
        #expect(
          run.count > 1 && run.dropFirst() == Array(run[1]...run.last!)[...],
          "the replay, then the flood in order"
        )
      }
      slow.dispose()
    }
  }

  @Test func nextDeliversABoundedShareOfOtherThreadsWork() async {
    await withWatchdog("nextDeliversABoundedShareOfOtherThreadsWork", seconds: 120) {
      let (producer, flooder, probe, slow) = Self.flood()
      // The calling thread's own event lets the flood queue 2,000 events behind it.
      let own = producer.observe { value in
        if value == -1 { probe.trigger { flooder.resumeAndWaitForQueued(2_000) } }
      }
      await Self.untilMeasured(probe) {
        flooder.pause()
        await producer.flush()
        _ = probe.measureOnAThread { producer.next(-1) }
      }
      _ = flooder.stop()
      // At most the budget of others' work (the own event is not counted by the probe).
      #expect(
        probe.counts.allSatisfy { $0 <= drainHandOffLimit },
        "a next delivered \(probe.counts.max() ?? 0) events of others (bound \(drainHandOffLimit))"
      )
      #expect(probe.counts.contains { $0 > 0 }, "the calls did deliver a share of the flood")
      await producer.flush()
      own.dispose()
      slow.dispose()
    }
  }

  /// The subscription loops that never returned while another thread sent (issue 17): `first()`
  /// and an operator chain, observed and disposed again and again during a flood that stops only
  /// once the loop is over. Under the old drain, the loop's thread delivered the flood forever.
  @Test func subscriptionLoopsReturnWhileAnotherThreadFloods() async {
    await withWatchdog("subscriptionLoopsReturnWhileAnotherThreadFloods", seconds: 120) {
      let (producer, flooder, _, slow) = Self.flood()
      flooder.resumeAndWaitForQueued(1_000)
      let firsts = Counter()
      for _ in 0..<(200 * stressScale) {
        producer.first().observe { _ in firsts.increment() }.dispose()
        producer.map { $0 * 2 }.filter { $0 >= 0 }.observe { _ in }.dispose()
      }
      _ = flooder.stop()
      await producer.flush()
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
  @Test func observableArrayMutationsHandOffUnderAFlood() async {
    await withWatchdog("observableArrayMutationsHandOffUnderAFlood", seconds: 120) {
      let array = ObservableArray<Int>()
      let count = Atomic<Int>(0)
      let observation = array.observe { event in
        // relaxed: read after flush(), which orders it.
        count.store(event.sequence.count, ordering: .relaxed)
        Self.work()
      }
      let perThread = 5_000 * stressScale
      runTogether(threads: 3) { thread in
        for value in 0..<perThread { array.append(thread * 1_000_000 + value) }
      }
      await array.flush()
      #expect(count.load(ordering: .relaxed) == 3 * perThread)
      observation.dispose()
    }
  }
}

/// Keeps `value` from being optimized away.
@inline(never)
private func blackHole<T>(_ value: T) {}
