import Foundation
import Synchronization

/// The limit every `withWatchdog` uses when `BOND_WATCHDOG_SECONDS` is set (to check that the
/// watchdog fires, or to give a slow machine more time); otherwise each call's own `seconds`.
let watchdogOverride: Double? = ProcessInfo.processInfo.environment["BOND_WATCHDOG_SECONDS"].flatMap(Double.init)

/// Runs `body` on the calling thread while a timer thread watches it: if `body` has not returned
/// after `seconds`, the timer prints `WATCHDOG: <name> did not finish in N s (hang)` to stderr and
/// aborts the process, so that a deadlock or a livelock becomes a failed run, never a stuck CI.
///
/// The limits are generous (a scenario takes well under a few seconds, but ThreadSanitizer on two
/// shared cores is slow): the watchdog catches hangs, it does not measure speed.
func withWatchdog(_ name: String, seconds: Double, _ body: () -> Void) {
  let finished = startWatchdog(name, seconds: seconds)
  body()
  finished.signal()
}

/// The least limit of an async scenario's watchdog, in seconds. In the parallel `swift test` the
/// synchronous tests hold the cooperative pool's threads (two on a two-core machine) until they
/// are done, so an async scenario that takes a second alone resumes after most of the suite has
/// run: `eventsSentWhileTheStageIsPausedComeThrough` (0.7 s alone) took 60 to 107 s in ten runs of
/// the suite on a loaded two-core machine, and over 120 s in one. The watchdog catches a hang; it
/// must not count the time the scenario waits for a thread.
let asyncWatchdogFloor: Double = 600

/// Starts the timer thread of `withWatchdog`; the caller signals the semaphore when its body returns.
private func startWatchdog(_ name: String, seconds: Double) -> DispatchSemaphore {
  let limit = watchdogOverride ?? seconds
  let finished = DispatchSemaphore(value: 0)
  let watcher = Thread {
    if finished.wait(timeout: .now() + limit) == .timedOut {
      let message = "WATCHDOG: \(name) did not finish in \(limit) s (hang)\n"
      FileHandle.standardError.write(message.data(using: .utf8)!)
      abort()
    }
  }
  watcher.name = "watchdog: \(name)"
  watcher.start()
  return finished
}

/// Polls `deliveries` (a count of deliveries) until it has not changed for `quiet` seconds, so a
/// test can check a state that only holds once deliveries have stopped. Called inside a watchdog:
/// deliveries that never stop are a hang.
func waitUntilQuiet(_ deliveries: () -> Int, quiet: Double = 0.05) {
  var last = deliveries()
  var stableSince = Date()
  while Date().timeIntervalSince(stableSince) < quiet {
    usleep(5_000)
    let now = deliveries()
    if now != last {
      last = now
      stableSince = Date()
    }
  }
}

/// Waits (polling, up to `seconds`) until `condition` holds; returns whether it did.
///
/// A call that finds other threads' work queued performs a bounded share of it and hands the rest
/// to a worker (issue 17), so when every sender has returned, the last events may still be on their
/// way: a test that checks what was delivered waits for it with this, then checks. Events lost for
/// good still fail the check, after the timeout.
@discardableResult
func waitUntil(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while !condition() {
    if Date() > deadline { return false }
    usleep(200)
  }
  return true
}

/// A one-shot meeting point for two threads: each `arrive(side)` returns once both sides have
/// arrived. Used to make two deliveries overlap for certain, which turns a possible deadlock into
/// a deterministic one on an engine that waits in `dispose()`.
final class Rendezvous: Sendable {
  private let arrived = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))

  func arrive(_ side: Int) {
    if side == 0 {
      arrived.0.signal()
      arrived.1.wait()
    } else {
      arrived.1.signal()
      arrived.0.wait()
    }
  }
}

/// A reusable barrier for `parties` threads (spins, then yields: there may be more threads than
/// cores), so that each round of a stress test starts on threads that are already running.
final class RoundBarrier: Sendable {
  private let parties: Int
  private let arrived = Atomic(0)
  private let generation = Atomic(0)

  init(parties: Int) { self.parties = parties }

  func wait() {
    let current = generation.load(ordering: .acquiring)
    if arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
      arrived.store(0, ordering: .relaxed)
      generation.wrappingAdd(1, ordering: .releasing)
    } else {
      var spins = 0
      while generation.load(ordering: .acquiring) == current {
        spins += 1
        if spins > 200 { sched_yield() }
      }
    }
  }
}

/// A value that several threads read and write, under a lock.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value
  init(_ value: Value) { stored = value }
  func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&stored)
  }
  var value: Value { withLock { $0 } }
}

/// `withWatchdog` for an async scenario: the timer thread aborts the process if `body` has not
/// returned after `seconds`, and never before ``asyncWatchdogFloor`` (a continuation never resumed
/// is a hang, and cancellation cannot end it).
func withWatchdog(_ name: String, seconds: Double, _ body: () async -> Void) async {
  let finished = startWatchdog(name, seconds: Swift.max(seconds, asyncWatchdogFloor))
  await body()
  finished.signal()
}

/// Counts deliveries and publishes what each delivery wrote before it counted (releasing add,
/// acquiring load): once ``wait(for:)`` has seen a count, the test may read the plain vars those
/// deliveries wrote. For tests whose senders have all returned while a worker may still deliver
/// (see ``waitUntil(seconds:_:)``).
final class DeliveryProgress: Sendable {
  private let value = Atomic<Int>(0)

  /// Called last in a delivery.
  func advance() { value.add(1, ordering: .releasing) }

  /// The deliveries counted so far.
  var count: Int { value.load(ordering: .acquiring) }

  /// Waits (up to `seconds`) until `expected` deliveries have been counted; returns whether they were.
  @discardableResult
  func wait(for expected: Int, seconds: Double = 30) -> Bool {
    waitUntil(seconds: seconds) { count >= expected }
  }
}
