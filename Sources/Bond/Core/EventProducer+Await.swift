import Synchronization

// How a sender awaits its work's delivery without a waiting thread (`send(contentsOf:)`, both
// forms, and `flush()`): on the fast path it takes the delivery rights and performs the work
// itself; when contended it queues the work and, right behind it, a `.resume` of its task, and
// suspends until the holder of the rights has performed them (see `EventProducer+Drain.swift`).

extension EventProducer where Event: Sendable {
  /// Sends `event` and returns once every observer has received it: at once on the fast path,
  /// else suspended until the thread holding the delivery rights has performed it (or the task is
  /// cancelled: `CancellationError`).
  @inlinable
  func sendAwaitingDelivery(_ event: Event) async throws {
    if !performIfIdle(.event(event)) { try await submitAwaitingContended(event) }
  }

  /// Queues `event` and, right behind it, a `.resume` of this task, then suspends (no thread waits,
  /// nothing spins): work is performed in queue order, so the holder of the delivery rights
  /// delivers `event` before it resumes this task. A cancellation resumes the task at once with
  /// `CancellationError` (``DeliveryWaiter``); `event` stays queued if it was.
  @usableFromInline
  func submitAwaitingContended(_ event: Event) async throws {
    try await submitAwaitingContended(count: 1) { queue, sender in
      queue.push(SentWork(.event(event), sender: sender))
    }
  }

  /// ``submitAwaitingContended(_:)`` for a burst of events: queued together, in order, in one
  /// lock, with one `.resume` behind the last.
  @usableFromInline
  func submitAwaitingContended(burst events: some Collection<Event>) async throws {
    try await submitAwaitingContended(count: events.count) { queue, sender in
      for event in events { queue.push(SentWork(.event(event), sender: sender)) }
    }
  }

  /// Pushes `count` work items (`push`, under the pending lock; 0 for `flush()`) and a `.resume` of
  /// this task behind them, then suspends until the holder of the delivery rights has performed
  /// them. A task cancelled before it suspends queues nothing and throws `CancellationError`.
  @usableFromInline
  func submitAwaitingContended(
    count: Int,
    push: (inout WorkQueue<SentWork<Work>>, UInt) -> Void
  ) async throws {
    let waiter = DeliveryWaiter()
    try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
        guard waiter.suspend(continuation) else { return }
        let total = count + 1
        let sender = currentThreadID()
        withPending { pending in
          push(&pending.queue, sender)
          pending.queue.push(SentWork(.resume(waiter), sender: sender))
        }
        // Pushed before they are counted, as every submission (see `DeliveryRights.swift`).
        if let missed = rights.counted(total) {
          // The holder left meanwhile: this task drains, and resumes itself on the way.
          drainQueued(missed: missed, budget: drainHandOffLimit)
        }
      }
    } onCancel: {
      waiter.cancel()
    }
  }

  /// Sends `events` as one burst and returns once every observer has received them: at once on the
  /// fast path, else suspended until the holder of the delivery rights has performed them.
  @inlinable
  func sendAwaitingDelivery(burst events: [Event]) async throws {
    if events.isEmpty { return }
    if !performIfIdle(burst: events) { try await submitAwaitingContended(burst: events) }
  }

  /// Delivers `events` at once if the producer is idle (as ``performIfIdle(_:budget:)`` does for
  /// one item), checking for a purge between events as the drain does; returns `false`, doing
  /// nothing, when the delivery rights are held.
  @inlinable
  func performIfIdle(burst events: [Event]) -> Bool {
    withRightsIfIdle {
      for event in events {
        deliverDraining(event)
        // relaxed: a hint only, as in the drain loop; purgeDraining's exchange orders the purge.
        if purgeRequested.load(ordering: .relaxed) { purgeDraining() }
      }
    }
  }
}
