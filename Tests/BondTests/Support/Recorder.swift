import Foundation
@testable import Bond

/// A thread-safe log of what observers received.
final class Recorder<T>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [T] = []
  func add(_ item: T) {
    lock.lock()
    stored.append(item)
    lock.unlock()
  }
  var items: [T] {
    lock.lock()
    defer { lock.unlock() }
    return stored
  }
  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return stored.count
  }
}

/// An object whose deallocation a test can watch through a weak reference.
final class Tracked: @unchecked Sendable {
  let name: String
  init(_ name: String = "") { self.name = name }
}

/// How long ``waitUntil(_:)`` and ``waitUntilAsync(_:)`` wait before they give up, in seconds: a
/// watchdog, not a measure. Generous because in the parallel `swift test` on two cores the
/// synchronous stress tests hold the cooperative pool, so an outcome that needs a task (a
/// concurrent `map`'s transform, an async sender) can wait a minute or more for a thread.
let outcomeWatchdogSeconds: Double = 120

/// Waits on this thread (polling) until `condition` holds, at most ``outcomeWatchdogSeconds``;
/// returns whether it did. For outcomes that arrive on other threads (a worker, a scheduler): the
/// test then checks them.
func waitUntil(_ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(outcomeWatchdogSeconds)
  while !condition() {
    if Date() > deadline { return false }
    usleep(500)
  }
  return true
}

/// ``waitUntil(_:)`` for async tests: polls with `Task.sleep`, so it never blocks a thread of the
/// cooperative pool that the tasks it waits for may need (2 threads on a 2-core machine).
func waitUntilAsync(_ condition: () -> Bool) async -> Bool {
  let deadline = Date().addingTimeInterval(outcomeWatchdogSeconds)
  while !condition() {
    if Date() > deadline { return false }
    try? await Task.sleep(for: .microseconds(500))
  }
  return true
}

extension EventProducer {
  /// The senders (`send(_:)`, `send(contentsOf:)`) suspended until this producer is writable: a
  /// test waits for this outcome instead of sleeping until a sender has started waiting.
  var waitingSenders: Int {
    flowGate.load()?.state.withLock { $0.waiters.count } ?? 0
  }
}
