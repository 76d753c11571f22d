import Synchronization

extension EventProducer where Event: Sendable {
  /// Sends each element of `sequence`, pulling the next one only after the current one has been
  /// delivered to every observer, then finishes this producer at the sequence's end and returns once the end is delivered. Cancellation
  /// or an error stops it without finishing (the error is thrown).
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
    while let element = try await iterator.next() {
      try Task.checkCancellation()
      await sendAwaitingDelivery(element)
    }
    try Task.checkCancellation()
    await finishAwaitingDelivery()
  }

  /// Sends `event` and returns once every observer has received it: at once on the fast path,
  /// else suspended until the thread holding the delivery rights has performed it.
  @inlinable
  func sendAwaitingDelivery(_ event: Event) async {
    // acquiringAndReleasing: as in next(_:).
    if wip.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged {
      deliverDraining(event)
      finishDraining(accounted: 1)
    } else {
      await submitAwaitingContended(.event(event))
    }
  }

  /// ``finish()``, returning once every observer has received the end.
  @usableFromInline
  func finishAwaitingDelivery() async {
    // acquiringAndReleasing: one winner queues the end, as in finish().
    guard !finishRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
    if wip.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged {
      endDraining()
      finishDraining(accounted: 1)
    } else {
      await submitAwaitingContended(.finish)
    }
  }

  /// Queues `work` and, right behind it, a `.resume` of this task, then suspends (no thread waits,
  /// nothing spins): work is performed in queue order, so the holder of the delivery rights
  /// performs `work` before it resumes this task.
  @usableFromInline
  func submitAwaitingContended(_ work: Work) async {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      pending.withLock { pending in
        pending.queue.push(work)
        pending.queue.push(.resume(continuation))
      }
      // Both items pushed before they are counted, as every submission (see the drain's notes).
      if wip.wrappingAdd(2, ordering: .acquiringAndReleasing).oldValue == 0 {
        // The holder left meanwhile: this task drains, and resumes itself on the way.
        performPendingDraining()
        finishDraining(accounted: 2)
      }
    }
  }
}
