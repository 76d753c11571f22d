/// The buffer of one ``BatchedValues`` or ``Values`` sequence, between the producer's observer (``receive(_:)``,
/// ``finish()``) and the consumer (``next(_:)``): its ``BatchedValuesStateMachine`` decides under
/// the lock; continuations are resumed, the gate moved and dropped events released after it (``carryOut(_:)``).
/// - Note: thread-safe.
@usableFromInline
final class BatchedValuesBuffer<Event: Sendable>: Sendable {
  @usableFromInline let machine: LockedState<BatchedValuesStateMachine<Event>>
  /// The pressure this buffer puts on the producer (`.backpressure` only).
  @usableFromInline let gate: FlowGate?
  /// The producer's observation, disposed when the consumer goes.
  @usableFromInline let observation = SerialDisposable()

  @inlinable
  init(maxCount: Int, bufferLimit: Int, policy: DeliveryOverflowPolicy, call: StaticString) {
    machine = LockedState(
      BatchedValuesStateMachine(maxCount: maxCount, bufferLimit: bufferLimit, policy: policy, call: call)
    )
    gate = policy == .backpressure ? FlowGate() : nil
  }

  /// An event of the producer (never concurrent with another: guarantee 1).
  @inlinable
  func receive(_ event: Event) {
    carryOut(machine.withLock { $0.received(event) })
  }

  /// The producer ended.
  @inlinable
  func finish() {
    carryOut(machine.withLock { $0.finished() })
  }

  /// The consumer is gone (cancelled, or the sequence released): the observation is disposed and
  /// the events let go.
  @inlinable
  func terminate() {
    carryOut(machine.withLock { $0.terminated() })
    observation.dispose()
  }

  /// What the consumer takes next (an array: `$0.take()`; one event: `$0.takeOne()`), waiting
  /// (suspended) while there is none; `nil` at the end or once the task is cancelled.
  @inlinable
  func next<Taken>(
    _ take: (inout BatchedValuesStateMachine<Event>) -> BatchedValuesStateMachine<Event>.Take<Taken>
  )
    async -> Taken?
  {
    while true {
      if Task.isCancelled {
        terminate()
        return nil
      }
      switch machine.withLock(take) {
      case .events(let events, let release):
        if release { gate?.release() }
        return events
      case .end:
        return nil
      case .wait:
        await withTaskCancellationHandler {
          await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            if machine.withLock({ $0.suspend(continuation) }) { continuation.resume() }
          }
        } onCancel: {
          terminate()  // resumes the consumer, which then returns nil
        }
      }
    }
  }

  @inlinable
  func carryOut(_ action: BatchedValuesStateMachine<Event>.Action) {
    switch action.pressure {
    case true?: gate?.raise()
    case false?: gate?.release()
    case nil: break
    }
    action.resume?.resume()
    // `action.dropped` is released here, after the lock, when `action` goes.
  }
}
