/// Carries a value that is not `Sendable` to a scheduler's thread.
///
/// Used for the observer closures (and `registered` callbacks) of the operators that deliver on a
/// scheduler: the contract's `observe` takes a plain closure, and the operator must call it on the
/// scheduler. That is safe as the operator uses it: the closure is called by one drain at a time
/// (never concurrently), each drain starting after the previous one ended (the hand-over goes
/// through a `LockedState`), and the caller of `observe` asked for it to run on that scheduler.
@usableFromInline
struct UncheckedSendable<Value>: @unchecked Sendable {
  @usableFromInline let value: Value

  @inlinable
  init(_ value: Value) {
    self.value = value
  }
}
