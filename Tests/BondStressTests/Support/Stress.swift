import Foundation
import Synchronization

/// Iteration counts are multiplied by `BOND_STRESS_SCALE` (default 1) for longer runs.
let stressScale = Int(ProcessInfo.processInfo.environment["BOND_STRESS_SCALE"] ?? "1") ?? 1

/// Runs `body(thread)` on `threads` threads released together by a barrier, and waits for all.
func runTogether(threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let ready = DispatchGroup()
  let done = DispatchGroup()
  let start = DispatchSemaphore(value: 0)
  for thread in 0..<threads {
    ready.enter()
    done.enter()
    Thread.detachNewThread {
      ready.leave()
      start.wait()
      body(thread)
      done.leave()
    }
  }
  ready.wait()
  for _ in 0..<threads { start.signal() }
  done.wait()
}

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
  var last: T? {
    lock.lock()
    defer { lock.unlock() }
    return stored.last
  }
}

/// Detects two calls running at once: `enter` must never find another call inside.
final class OverlapDetector: Sendable {
  private let inside = Atomic<Int>(0)
  private let overlaps = Atomic<Int>(0)
  func enter() {
    if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
  }
  func leave() { inside.subtract(1, ordering: .sequentiallyConsistent) }
  var count: Int { overlaps.load(ordering: .relaxed) }
}

/// A counter for tests, thread-safe.
final class Counter: Sendable {
  private let value = Atomic<Int>(0)
  func increment() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}
