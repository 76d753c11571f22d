// `ObservableArray.flush()`: the producer's barrier (`Core/EventProducer+Flush.swift`) through the
// array's two steps, its hand-off and then its delivery producer.

extension ObservableArray where Element: Sendable {
  /// Returns once every mutation made before this call, by any thread, has been delivered to every
  /// observer as its event (see ``EventProducer/flush()``). Suspended, never blocking;
  /// cancellation resumes it at once.
  public func flush() async {
    // acquiring: as in `EventProducer.flush()`, for the two counts of the array's two steps (its
    // hand-off, then its delivery producer).
    if handOffRights.isIdle, delivery.rights.isIdle { return }
    let waiter = DeliveryWaiter()
    await withTaskCancellationHandler {
      // The barrier goes through the hand-off queue, in mutation order; the hand-off thread passes
      // it on to the delivery producer's queue (``ObservableArrayWork/barrier(_:)``), which resumes
      // the task after the events before it.
      try? await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
        guard waiter.suspend(continuation) else { return }
        let first = state.withLock { enqueue(.barrier(waiter), in: &$0) }
        // Budget 0: it performs its own barrier, nothing queued by others.
        handOff(first, budget: 0)
      }
    } onCancel: {
      waiter.cancel()
    }
  }
}
