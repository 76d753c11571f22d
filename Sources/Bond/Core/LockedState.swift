#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock that owns its state: the state is reached only through ``withLock(_:)``.
///
/// Lock and state share one allocation (NIO's `NIOLockedValueBox`, async-algorithms'
/// `ManagedCriticalState`). Built on `pthread_mutex_t` rather than `Synchronization.Mutex` because
/// ThreadSanitizer intercepts pthread mutexes but not the futex calls `Mutex` makes on Linux, so
/// with `Mutex` every test under `--sanitize=thread` would report the state it protects as a race.
/// Never call user code (an observer, a closure, a scheduler) inside `withLock`.
/// - Note: thread-safe.
@usableFromInline
final class LockedState<State>: @unchecked Sendable {
  // @unchecked: `state` is read and written only between pthread_mutex_lock and unlock.
  @usableFromInline let buffer: ManagedBuffer<State, pthread_mutex_t>

  @inlinable
  init(_ state: State) {
    buffer = ManagedBuffer<State, pthread_mutex_t>.create(minimumCapacity: 1) { _ in state }
    buffer.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: pthread_mutex_t())
      let result = pthread_mutex_init(mutex, nil)
      precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }
  }

  deinit {
    buffer.withUnsafeMutablePointerToElements { mutex in
      pthread_mutex_destroy(mutex)
      mutex.deinitialize(count: 1)
    }
  }

  /// Runs `body` with exclusive access to the state.
  @inlinable
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try buffer.withUnsafeMutablePointers { state, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&state.pointee)
    }
  }
}
