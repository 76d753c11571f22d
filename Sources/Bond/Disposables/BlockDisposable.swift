import Synchronization

/// A disposable that runs a closure once, on the first call to ``dispose()``.
///
/// The handler runs on the thread that disposes first; later calls do nothing. The handler is
/// released right after it has run, so whatever it captured is freed at once.
///
/// ```swift
/// let disposable = BlockDisposable { print("cleaned up") }
/// disposable.dispose()   // prints "cleaned up"
/// disposable.dispose()   // does nothing
/// ```
///
/// - Note: thread-safe. ``dispose()`` may be called from any number of threads at once, and from
///   inside the handler itself; the handler runs exactly once and never while a lock is held.
public final class BlockDisposable: DisposableType {
  /// The handler, or `nil` once it has been taken to run. Owned by the lock.
  @usableFromInline
  let handler: LockedState<(@Sendable () -> Void)?>

  /// Creates a disposable that runs `handler` the first time it is disposed.
  /// - Parameter handler: the work to do on disposal; it runs exactly once.
  @inlinable
  public init(_ handler: @escaping @Sendable () -> Void) {
    self.handler = LockedState(handler)
  }

  /// Whether ``dispose()`` has been called (the handler may still be running on another thread).
  @inlinable
  public var isDisposed: Bool {
    handler.withLock { $0 == nil }
  }

  /// Runs the handler if this is the first call; otherwise does nothing.
  @inlinable
  public func dispose() {
    // Decide under the lock (take the handler out), act after it: the handler is user code and
    // may dispose other things, or this disposable again.
    let taken = handler.withLock { handler in
      let taken = handler
      handler = nil
      return taken
    }
    taken?()
    // `taken` ends here: the handler and everything it captured are released now.
  }
}
