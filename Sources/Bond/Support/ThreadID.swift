#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A number that identifies the calling thread while it runs (its `pthread_self`), never 0.
@inlinable
func currentThreadID() -> UInt {
  UInt(pthread_self())  // Linux: `pthread_t` is an integer
}
