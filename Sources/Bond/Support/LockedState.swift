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
/// `package`: `BondTesting` uses it too.
/// - Note: thread-safe.
@usableFromInline
package struct LockedState<State>: @unchecked Sendable {
  // @unchecked: the state is read and written only between pthread_mutex_lock and unlock.
  @usableFromInline let storage: LockStorage<State>

  @inlinable
  package init(_ state: State) {
    storage = LockStorage.make(state)
  }

  /// The lock of an existing storage (one made with ``LockStorage/make(_:)``, perhaps on first use).
  @inlinable
  init(storage: LockStorage<State>) {
    self.storage = storage
  }

  /// Runs `body` with exclusive access to the state.
  @inlinable
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try storage.withLock(body)
  }
}

/// The single allocation behind ``LockedState``: the state as the header, the mutex as the element.
@usableFromInline
final class LockStorage<State>: ManagedBuffer<State, pthread_mutex_t>, @unchecked Sendable {
  @inlinable
  static func make(_ state: State) -> LockStorage<State> {
    let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in state }, to: LockStorage<State>.self)
    storage.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: pthread_mutex_t())
      let result = pthread_mutex_init(mutex, nil)
      precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }
    return storage
  }

  deinit {
    withUnsafeMutablePointerToElements { mutex in
      pthread_mutex_destroy(mutex)
      mutex.deinitialize(count: 1)
    }
  }

  @inlinable
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try withUnsafeMutablePointers { state, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&state.pointee)
    }
  }
}
