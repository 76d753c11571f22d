import Synchronization

extension EventProducer where Event: Sendable {
  /// Sends each element of `sequence`, pulling the next one only after the current one has been
  /// delivered to every observer, and returns once the last one is delivered. It never finishes the
  /// producer: several tasks may send into one producer, and the end is the caller's ``finish()``.
  /// Cancellation or an error stops it (the error is thrown).
  ///
  /// Flow control: before it pulls each element it waits, suspended, while this producer is not
  /// writable (a `.backpressure` stage downstream is under pressure; see ``EventProducer/send(_:)``).
  ///
  /// Cancellation takes effect at once, even while the task waits for another thread's delivery:
  /// the call throws `CancellationError` without waiting for the holder of the delivery rights. An
  /// element it had already queued may still be delivered, in its place in the order.
  ///
  /// ```swift
  /// try await lines.send(contentsOf: file.bytes.lines)
  /// lines.finish()   // when this was the last sender
  /// ```
  ///
  /// Backpressure: when this task takes the delivery rights, the element is delivered before the
  /// call goes on, as with ``next(_:)``. When another thread holds them, the element is queued
  /// behind that thread's work and this task is suspended (not spinning, not blocking a thread)
  /// until the holder has delivered it; the holder resumes it.
  @inlinable
  public func send<Sequence: AsyncSequence>(contentsOf sequence: Sequence) async throws
  where Sequence.Element == Event {
    var iterator = sequence.makeAsyncIterator()
    // Flow control: waits while this producer is not writable before it pulls each element.
    while true {
      try await waitUntilWritable()
      guard let element = try await iterator.next() else { break }
      try Task.checkCancellation()
      try await sendAwaitingDelivery(element)
    }
  }

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
        pending.withLock { pending in
          push(&pending.queue, sender)
          pending.queue.push(SentWork(.resume(waiter), sender: sender))
        }
        // Pushed before they are counted, as every submission (see the drain's notes).
        if wip.wrappingAdd(total, ordering: .acquiringAndReleasing).oldValue == 0 {
          // The holder left meanwhile: this task drains, and resumes itself on the way.
          tookRights()
          drainQueued(missed: total, budget: drainHandOffLimit)
        }
      }
    } onCancel: {
      waiter.cancel()
    }
  }
}
