#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How deep the default `observe(with:)` of ``EventProducerType`` is nested on this thread: the
/// guard against a conformer that implements neither `observe(with:)` nor `observe(_:)`, whose two
/// defaults would call each other until the stack overflows. Only that default pays for it (a
/// Bond v4-style type that implements `observe(_:)` only); every producer and operator of Bond
/// implements `observe(with:)`.
@usableFromInline
enum DefaultObserveDepth {
  /// Deeper than any real chain of v4-style producers observing each other.
  @usableFromInline static let limit = 256

  @usableFromInline static let key: pthread_key_t = {
    var key = pthread_key_t()
    let result = pthread_key_create(&key, nil)
    precondition(result == 0, "pthread_key_create failed: \(result)")
    return key
  }()

  /// Enters one level; returns the depth before it.
  @usableFromInline
  static func enter() -> Int {
    let depth = Int(bitPattern: pthread_getspecific(key))
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth + 1))
    return depth
  }

  /// Leaves one level.
  @usableFromInline
  static func leave() {
    let depth = Int(bitPattern: pthread_getspecific(key))
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth - 1))
  }
}
