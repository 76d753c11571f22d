import Synchronization

extension EventProducer where Event: Sendable {
  /// Sends each element of `sequence`, pulling the next one only after the current one has been
  /// delivered to every observer, then finishes this producer at the sequence's end and returns once
  /// the end is delivered. Cancellation or an error stops it without finishing (the error is thrown).
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
    try Task.checkCancellation()
    try await finishAwaitingDelivery()
  }

  /// Sends `event` and returns once every observer has received it: at once on the fast path,
  /// else suspended until the thread holding the delivery rights has performed it (or the task is
  /// cancelled: `CancellationError`).
  @inlinable
  func sendAwaitingDelivery(_ event: Event) async throws {
    if !performIfIdle(.event(event)) { try await submitAwaitingContended(.event(event)) }
  }

  /// ``finish()``, returning once every observer has received the end.
  @usableFromInline
  func finishAwaitingDelivery() async throws {
    // acquiringAndReleasing: one winner queues the end, as in finish().
    guard !finishRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
    if !performIfIdle(.finish) { try await submitAwaitingContended(.finish) }
  }

  /// Queues `work` and, right behind it, a `.resume` of this task, then suspends (no thread waits,
  /// nothing spins): work is performed in queue order, so the holder of the delivery rights
  /// performs `work` before it resumes this task. A cancellation resumes the task at once with
  /// `CancellationError` (``DeliveryWaiter``); `work` stays queued if it was.
  @usableFromInline
  func submitAwaitingContended(_ work: Work) async throws {
    let isEvent: Bool
    if case .event = work { isEvent = true } else { isEvent = false }
    try await submitAwaitingContended(count: 1, onlyEvents: isEvent) { queue, sender in
      queue.push(SentWork(work, sender: sender))
    }
  }

  /// ``submitAwaitingContended(_:)`` for a burst of events: queued together, in order, in one
  /// lock, with one `.resume` behind the last.
  @usableFromInline
  func submitAwaitingContended(burst events: some Collection<Event>) async throws {
    try await submitAwaitingContended(count: events.count, onlyEvents: true) { queue, sender in
      for event in events { queue.push(SentWork(.event(event), sender: sender)) }
    }
  }

  /// Pushes `count` work items (`push`, under the pending lock) and a `.resume` of this task behind
  /// them, then suspends until the holder of the delivery rights has performed them.
  @usableFromInline
  func submitAwaitingContended(
    count: Int,
    onlyEvents: Bool,
    push: (inout WorkQueue<SentWork<Work>>, UInt) -> Void
  ) async throws {
    let waiter = DeliveryWaiter()
    try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
        // Cancelled before suspending: events are not sent; the end, already requested (its flag
        // is set), is queued all the same, with nobody to resume.
        let suspended = waiter.suspend(continuation)
        if !suspended, onlyEvents { return }
        let total = suspended ? count + 1 : count
        let sender = currentThreadID()
        pending.withLock { pending in
          push(&pending.queue, sender)
          if suspended { pending.queue.push(SentWork(.resume(waiter), sender: sender)) }
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
