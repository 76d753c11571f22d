import Synchronization

/// Carries a value across the `sending` boundary of `Mutex.withLock`.
///
/// `Mutex.withLock` demands that what goes in and out of the lock is `sending` (disconnected), which
/// the region checker cannot prove for generic, possibly non-Sendable elements taken out of the
/// state it guards. The observable array's state is reached only under its lock, and the elements
/// it hands out cross threads only as its own Sendable conformance (when `Element: Sendable`)
/// allows, so the check is lifted here, in one place.
@usableFromInline
struct UncheckedSendable<Value>: @unchecked Sendable {
  @usableFromInline var value: Value

  @inlinable
  init(_ value: Value) {
    self.value = value
  }
}

extension Mutex where Value: Sendable {
  /// `withLock` for state whose values (generic elements) the region checker cannot follow.
  @inlinable
  func withLockUnchecked<Result>(_ body: (inout Value) -> Result) -> Result {
    withoutActuallyEscaping(body) { body in
      let body = UncheckedSendable(body)
      return withLock { value in UncheckedSendable(body.value(&value)) }.value
    }
  }
}
