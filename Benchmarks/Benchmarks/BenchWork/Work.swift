// What several benchmark executables share (S13's lanes curve, S20 and its curve): the ~1 µs of CPU
// work, the hand-written TaskGroup window that S20 compares Bond's `map(maxConcurrent:)` with, and a
// latch a task awaits until observers have received their end.
import Dispatch
import Synchronization

/// A multiply-xor hash round, `rounds` times: CPU work the optimizer cannot fold.
@inline(never)
public func mix(_ seed: UInt64, rounds: Int) -> UInt64 {
  var h = seed
  for _ in 0..<rounds {
    h ^= h >> 29
    h = h &* 0x100_0000_01B3
  }
  return h
}

/// Keeps a value alive without a visible use.
@inline(never)
public func consume(_ value: Int) { if value == 42 { print("") } }

/// Rounds of `mix` in about 1 µs on this machine (best of 5 timings of 2M rounds; the seed and the
/// count depend on the command line's length, so the compiler cannot fold the loop).
public func microsecondOfRounds() -> Int {
  let arguments = CommandLine.arguments.count
  let rounds = 2_000_000 + arguments
  var best = Double.infinity
  for run in 0..<5 {
    let start = DispatchTime.now().uptimeNanoseconds
    consume(Int(truncatingIfNeeded: mix(UInt64(run + arguments), rounds: rounds)))
    best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start))
  }
  return max(100, min(2_000, Int(1_000 * Double(rounds) / best)))
}

/// The hand-written alternative to `map(maxConcurrent: width)`: a `TaskGroup` sliding window.
/// Events `0..<count`, one child task each; at most `width` events started and not yet handed to
/// `receive` (Bond's window: a finished result that waits for an earlier one holds its place), and
/// `receive` gets the results in the order of their events.
@inlinable
public func taskGroupWindow(
  count: Int,
  width: Int,
  _ transform: @escaping @Sendable (Int) async -> Int,
  receive: (Int) -> Void
) async {
  await withTaskGroup(of: (index: Int, value: Int).self) { group in
    var slots = [Int?](repeating: nil, count: width)
    var started = 0
    var delivered = 0
    while started < count && started < width {
      let index = started
      group.addTask { (index, await transform(index)) }
      started += 1
    }
    while let (index, value) = await group.next() {
      slots[index % width] = value
      while let ready = slots[delivered % width] {
        slots[delivered % width] = nil
        receive(ready)
        delivered += 1
      }
      while started < count && started - delivered < width {
        let next = started
        group.addTask { (next, await transform(next)) }
        started += 1
      }
    }
  }
}

/// Resumes the task that awaits `wait()` once `finishOne()` has been called `count` times.
public final class Completion: Sendable {
  private let state: Mutex<(remaining: Int, waiter: CheckedContinuation<Void, Never>?)>

  public init(count: Int) { state = Mutex((count, nil)) }

  public func finishOne() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.remaining -= 1
      guard state.remaining == 0 else { return nil }
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  public func wait() async {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state in
        if state.remaining == 0 { return true }
        state.waiter = continuation
        return false
      }
      if done { continuation.resume() }
    }
  }
}

/// How much faster two threads do two units of `mix` work than one thread does one, right now (best
/// of 3 each, ~30 ms a unit): the ceiling of any 2-way speed-up on this machine at this moment
/// (2.0 on two idle cores; ~1.0 when other processes take a core).
public func twoThreadSpeedup(rounds: Int = 20_000_000) -> Double {
  func best(threads: Int) -> Double {
    var best = Double.infinity
    for _ in 0..<3 {
      let start = DispatchTime.now().uptimeNanoseconds
      DispatchQueue.concurrentPerform(iterations: threads) { thread in
        consume(Int(truncatingIfNeeded: mix(UInt64(thread + CommandLine.arguments.count), rounds: rounds)))
      }
      best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start))
    }
    return best
  }
  return 2 * best(threads: 1) / best(threads: 2)
}
