import Dispatch
import Synchronization

// The hand-off of the delivery rights to a worker: see "Bounded work for others" in
// `EventProducer+Drain.swift`.

/// How many work items queued by other threads a `next`, `finish` or `send` performs before it
/// hands the rest to a worker (see "Bounded work for others").
@inlinable
var drainHandOffLimit: Int { 1_024 }

extension EventProducer {
  /// Hands the delivery rights to a worker: one dispatch to a global queue, which nobody waits for,
  /// goes on with ``drainQueued(missed:budget:)`` where this thread stopped (the rest of the batch
  /// first, so the order is kept) with no budget. `wip` stays above 0 meanwhile, so no other thread
  /// takes the rights and every later call queues behind the worker, as behind any holder.
  /// The dispatch orders this thread's writes to the drainer-owned state before the worker's reads.
  @inlinable @inline(never)
  func handOff(missed: Int) {
    let worker = UncheckedSendable(self)
    gaveRights()
    DispatchQueue.global().async {
      worker.value.tookRights()
      worker.value.drainQueued(missed: missed, budget: .max)
    }
  }
}

// A check where `@exclusivity(unchecked)` turns the compiler's off (RxSwift's
// `SynchronizationTracker`): in debug builds, the thread that holds the delivery rights is recorded
// when it takes them and cleared when it gives them back, and every function that touches the
// drainer-owned state checks it is that thread. Compiled out of release builds (the `#if` is
// resolved when Bond is built, also in its inlinable code), so `swift test` runs it and users pay
// nothing.
extension EventProducer {
  /// Records this thread as the holder of the delivery rights (debug builds).
  @inlinable @inline(__always)
  func tookRights() {
    #if DEBUG
    // relaxed: `wip`'s acquiring-and-releasing operations order the holders; this only records.
    let previous = rightsHolder.exchange(currentThreadID(), ordering: .relaxed)
    precondition(previous == 0, "EventProducer: two threads took the delivery rights at once")
    #endif
  }

  /// Clears the holder before the rights are given back (debug builds).
  @inlinable @inline(__always)
  func gaveRights() {
    #if DEBUG
    checkRights()
    rightsHolder.store(0, ordering: .relaxed)
    #endif
  }

  /// Stops if this thread does not hold the delivery rights (debug builds).
  @inlinable @inline(__always)
  func checkRights() {
    #if DEBUG
    precondition(
      rightsHolder.load(ordering: .relaxed) == currentThreadID(),
      "EventProducer: drainer-owned state touched by a thread that does not hold the delivery rights"
    )
    #endif
  }
}
