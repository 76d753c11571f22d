import Synchronization

/// A `Synchronization.Mutex` whose ordering ThreadSanitizer can see.
///
/// On Linux, `Mutex` takes and hands over a contended lock inside the kernel (a priority-inheritance
/// futex, in the uninstrumented `_lockSlow`/`_unlockSlow` of the Synchronization library), so
/// ThreadSanitizer never sees the acquire and reports false data races (and "Swift access races")
/// between two `withLock` bodies as soon as the lock is contended. This wrapper adds an acquiring
/// load at the start of each critical section and a releasing store at its end, on an atomic
/// that only the lock holder touches. ThreadSanitizer models those, so it sees each critical
/// section happen after the previous one. The cost outside sanitizer builds is close to nothing:
/// both are plain `mov`s on x86_64 (`ldar`/`stlr` on arm64), on a cache line the holder already owns.
///
/// The lock owns its state: the only way to it is ``withLock(_:)``.
/// - Note: thread-safe. Like `Mutex`, it is not recursive: never call `withLock` from inside its body.
@usableFromInline
struct SanitizerVisibleMutex<Value: ~Copyable>: ~Copyable, Sendable {
  @usableFromInline
  let mutex: Mutex<Value>
  /// Touched only while `mutex` is held; gives ThreadSanitizer the happens-before edge between
  /// consecutive critical sections that the futex slow path hides from it.
  @usableFromInline
  let edge: Atomic<Bool>

  @inlinable
  init(_ initialValue: consuming sending Value) {
    mutex = Mutex(initialValue)
    edge = Atomic(false)
  }

  /// Runs `body` with exclusive access to the state, and returns its result.
  @inlinable
  borrowing func withLock<Result: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
      // Acquiring: pairs with the releasing store of the previous holder (see the type's doc).
      _ = edge.load(ordering: .acquiring)
      // Releasing: publishes this critical section to the next holder's acquiring load.
      defer { edge.store(false, ordering: .releasing) }
      return try body(&value)
    }
  }
}
