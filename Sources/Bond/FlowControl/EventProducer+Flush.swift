// `flush()`: a barrier in the one delivery order. It waits, suspended, until every event that any
// thread sent before the call has been delivered, the events a worker took over from a sender
// that returned included (the hand-off: see `EventProducer+Drain.swift`).
//
// When the producer is idle (its delivery rights count nothing) everything sent before has been delivered: it returns at
// once. Otherwise it queues a `.resume` of its task behind the work queued so far; the holder of
// the delivery rights (a sender, or the worker it handed off to) performs work in queue order, so
// it resumes the task after that work. A cancelled task resumes at once (`DeliveryWaiter`).

extension EventProducer where Event: Sendable {
  /// Returns once every event that any thread sent before this call (and the end, if one was sent)
  /// has been delivered to every observer.
  ///
  /// A send may return before the events it found queued are delivered: the thread holding the
  /// delivery rights hands a long backlog to a worker instead of delivering it all (bounded work).
  /// `flush()` is how a program or a test waits for those deliveries:
  ///
  /// ```swift
  /// await withDiscardingTaskGroup { group in
  ///   for sender in 0..<4 { group.addTask { for i in 0..<5_000 { producer.next(sender * 5_000 + i) } } }
  /// }
  /// await producer.flush()   // all 20,000 have reached every observer
  /// ```
  ///
  /// It waits suspended (no thread blocks, nothing spins) for a barrier that takes its place in the
  /// one delivery order, and returns at once when nothing is queued. Cancellation resumes it at once.
  /// "Delivered" means that each observer's closure has returned: for a stage downstream that hands
  /// events to a scheduler (`deliverOn`), the event has been handed to that stage.
  public func flush() async {
    // acquiring: a count of 0 means every submission so far was performed; this load sees what
    // those deliveries wrote (the holder's releasing subtraction).
    if rights.isIdle { return }
    // No work of its own: only the `.resume` is queued. Cancelled before it suspends, it returns.
    try? await submitAwaitingContended(count: 0) { _, _ in }
  }
}

extension Observable where Value: Sendable {
  /// Returns once every value set before this call, by any thread, has been delivered to every
  /// observer (see ``EventProducer/flush()``). Suspended, never blocking; cancellation resumes it at
  /// once.
  public func flush() async {
    await producer.flush()
  }
}
