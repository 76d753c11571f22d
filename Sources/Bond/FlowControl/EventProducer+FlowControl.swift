import Synchronization

// Flow control on the producer side: whether it may be sent to (`isWritable`, `writability`), and
// the async senders that wait while it may not (`send(_:)`, and `send(contentsOf:)` before each
// element). How the pressure gets here: `FlowGate.swift`.

extension EventProducer {
  /// Whether an async sender may send now without waiting: `false` while a `.backpressure` stage
  /// that one of this producer's observations reaches without crossing another stage is under
  /// pressure (see <doc:FlowControlGuide>). A finished producer is writable.
  ///
  /// `next(_:)` never waits, whatever this says: a synchronous source that can pause (a socket's
  /// reads, a broker consumer) observes ``writability`` and pauses while it is `false`.
  public var isWritable: Bool {
    guard let gate = flowGate.load() else { return true }
    return gate.isWritable || isFinished
  }

  /// ``isWritable`` as a stream: the current value at once, then each change.
  ///
  /// A change is delivered on the thread that made it (the stage's drain releasing its pressure,
  /// or a sender filling it), serialized like any producer's events and never inside a lock; each
  /// observer receives the value current when the change reaches it, never the same value twice
  /// in a row, and the last one it receives is the current one.
  ///
  /// ```swift
  /// source.writability.observe { writable in writable ? socket.resumeReads() : socket.pauseReads() }
  /// ```
  public var writability: AnyEventProducer<Bool> {
    Writability(gate: gate).eraseToAnyEventProducer()
  }
}

/// ``EventProducer/writability``: the gate's changes, each read as the gate's `isWritable` at the
/// moment it reaches the observer, never the same value twice in a row to one observer. (The
/// `map`-then-`distinct()` of the operators' layer, written here so that flow control uses nothing
/// above Core.)
@usableFromInline
struct Writability: EventProducerType {
  @usableFromInline let gate: FlowGate

  @usableFromInline
  init(gate: FlowGate) { self.gate = gate }

  @usableFromInline
  var replayLength: Int { 1 }

  @usableFromInline
  func observe(with observer: EventObserver<Bool>) -> any DisposableType {
    let gate = gate
    // Per-observer state: delivery to one observer is never concurrent (guarantee 1), so a plain
    // captured var is safe, as in `distinct()`.
    var last: Bool?
    return gate.writabilityChanges.observe(
      with: observer.withEvent { _ in
        let writable = gate.isWritable
        if last == writable { return }
        last = writable
        observer.event(writable)
      }
    )
  }
}

extension EventProducer where Event: Sendable {
  /// Sends `event` once this producer is writable, and returns once it has been delivered to every
  /// observer (a `deliverOn` stage's observer: once it is in the stage's buffer).
  ///
  /// ```swift
  /// for try await record in socket.records { try await events.send(record) }
  /// ```
  ///
  /// While the producer is not writable (a `.backpressure` stage downstream is under pressure) the
  /// task waits, suspended: no thread is blocked, nothing spins. Cancelling the task resumes it at
  /// once with `CancellationError`; the event is then not sent, and the producer is not finished.
  /// On a finished producer it returns without delivering, as `next` does.
  /// - Throws: `CancellationError` when the task is cancelled before the event is sent.
  @inlinable
  public func send(_ event: Event) async throws {
    try Task.checkCancellation()
    try await waitUntilWritable()
    try await sendAwaitingDelivery(event)
  }

  /// Returns at once when this producer is writable (no gate, not under pressure, or finished),
  /// else waits (``waitWhileNotWritable()``). Inlinable: the writable case is two loads in the
  /// caller's module (`flowGate` is a ``FlowGateSlot``: no generic call).
  @inlinable
  func waitUntilWritable() async throws {
    guard let gate = flowGate.load(), gate.isPressured, !isFinished else { return }
    try await waitWhileNotWritable()
  }

  /// Waits, suspended, until this producer is writable, or throws `CancellationError` when the
  /// task is cancelled first. Waits again when the producer is under pressure anew by the time the
  /// task runs.
  @usableFromInline
  func waitWhileNotWritable() async throws {
    while true {
      try Task.checkCancellation()
      guard !isFinished, let gate = flowGate.load(), gate.isPressured else { return }
      let waiter = DeliveryWaiter()
      try await withTaskCancellationHandler {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
          guard waiter.suspend(continuation) else { return }  // cancelled first: resumed, throws
          // Released meanwhile: nothing to wait for.
          if !gate.waitForRelease(waiter) { waiter.delivered() }
        }
      } onCancel: {
        waiter.cancel()
        gate.forget(waiter)
      }
    }
  }
}
