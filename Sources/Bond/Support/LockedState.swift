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
      let result = initializeAdaptiveMutex(mutex)
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

/// Initializes `mutex` as an adaptive mutex where the platform has one (glibc's
/// `PTHREAD_MUTEX_ADAPTIVE_NP`): a thread that finds it held spins a bounded number of times
/// (glibc learns the count from past waits, at most 100 rounds) before it sleeps in the kernel.
/// Bond's critical sections are a few dozen instructions, so the holder is nearly always done
/// within the spin, and the waiter avoids a futex sleep and wake-up, which costs microseconds, or
/// a scheduler tick when another thread takes its core meanwhile (the tail of a hop between two
/// threads). Elsewhere, a default mutex. Returns `pthread_mutex_init`'s result.
@usableFromInline
func initializeAdaptiveMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) -> Int32 {
  #if canImport(Glibc)
  var attributes = pthread_mutexattr_t()
  pthread_mutexattr_init(&attributes)
  defer { pthread_mutexattr_destroy(&attributes) }
  pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
  return pthread_mutex_init(mutex, &attributes)
  #else
  return pthread_mutex_init(mutex, nil)
  #endif
}
