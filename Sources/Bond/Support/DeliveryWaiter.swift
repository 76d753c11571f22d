/// A task suspended until the work queued before it has been delivered (`send(contentsOf:)`), or
/// until it is cancelled, whichever comes first: exactly one of the two resumes it.
///
/// The drainer calls ``delivered()`` when it reaches the `.resume` queued behind the task's work;
/// the task's cancellation handler calls ``cancel()``. The first resumes the continuation (with
/// `CancellationError` for a cancellation); the second does nothing. A cancellation that comes
/// before the task has suspended is kept, and ``suspend(_:)`` then resumes it at once.
/// - Note: thread-safe (its state is behind a pthread lock); the continuation is resumed outside it.
@usableFromInline
final class DeliveryWaiter: Sendable {
  @usableFromInline
  enum State: Sendable {
    case initial
    case suspended(UnsafeContinuation<Void, any Error>)
    case cancelled
    case resumed
  }

  @usableFromInline let state = LockedState(State.initial)

  @inlinable
  init() {}

  /// Keeps `continuation` for ``delivered()`` or ``cancel()``; returns `false` (having resumed it
  /// with `CancellationError`) when the task was cancelled first.
  @inlinable
  func suspend(_ continuation: UnsafeContinuation<Void, any Error>) -> Bool {
    let wasCancelled = state.withLock { state -> Bool in
      guard case .initial = state else { return true }
      state = .suspended(continuation)
      return false
    }
    if wasCancelled { continuation.resume(throwing: CancellationError()) }
    return !wasCancelled
  }

  /// The work queued before it has been delivered: resumes the task unless it was cancelled.
  @inlinable
  func delivered() {
    take()?.resume()
  }

  /// The task was cancelled: resumes it at once with `CancellationError` (if it is suspended).
  @inlinable
  func cancel() {
    take(cancelling: true)?.resume(throwing: CancellationError())
  }

  /// Takes the continuation out, so that only one caller resumes it.
  @inlinable
  func take(cancelling: Bool = false) -> UnsafeContinuation<Void, any Error>? {
    state.withLock { state in
      switch state {
      case .suspended(let continuation):
        state = .resumed
        return continuation
      case .initial:
        if cancelling { state = .cancelled }
        return nil
      case .cancelled, .resumed:
        return nil
      }
    }
  }
}
