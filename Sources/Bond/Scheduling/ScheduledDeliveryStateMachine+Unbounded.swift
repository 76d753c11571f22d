// The unbounded mode of a scheduled delivery's decisions: the drain takes the whole buffer in one
// step (swapping queues, so the storage of both is reused), and the end of a drain in both modes.

extension ScheduledDeliveryStateMachine {
  @usableFromInline
  enum BatchStep {
    /// Deliver `batch` to the observer; with `registeredAt`, the owner takes `registered` out with
    /// this step and calls it before the event at that offset (or after the last one, when the
    /// offset is the batch's count).
    case deliver(registeredAt: Int?)
    /// The drain ends.
    case exit(DrainExit)
  }

  /// Unbounded mode: hands the whole buffer to the drain, swapping it with `batch` (the drain's
  /// empty queue), so events are taken in one lock and the storage of both queues is reused.
  @inlinable
  mutating func nextBatch(_ batch: inout WorkQueue<Event>, mayContinue: Bool) -> BatchStep {
    // Disposed (or over): the observer is gone.
    guard !isDisposed else { return .exit(.stop) }
    let registeredAt = registration.offset
    if buffer.isEmpty && registeredAt == .max {
      if drainEnds() { return .exit(.finish(ended())) }
      swap(&spare, &batch)
      return .exit(.stop)
    }
    if !mayContinue { return .exit(.reschedule) }
    if batch.storage.isEmpty { swap(&batch, &spare) }
    swap(&batch, &buffer)
    took(batch.count)
    guard registeredAt != .max else { return .deliver(registeredAt: nil) }
    registration = .absent
    return .deliver(registeredAt: registeredAt)
  }

  /// A drain found nothing left: returns whether the end is due (``State/ending``: the caller hands
  /// it over with ``ended()``); else the delivery is idle again. Off the per-event path.
  @inlinable
  mutating func drainEnds() -> Bool {
    switch state {
    case .ending:
      return true
    case .draining:
      state = .idle
      return false
    case .idle, .over:
      // `.over` returned before (disposed); `.idle`: no drain was started.
      preconditionFailure("ScheduledDeliveryStateMachine.drain: a drain step while no drain was started")
    }
  }
}
