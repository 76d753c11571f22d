import Dispatch

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
    DispatchQueue.global().async { worker.value.drainQueued(missed: missed, budget: .max) }
  }
}
