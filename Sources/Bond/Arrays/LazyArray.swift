/// The array of an ``ObservableArrayEvent`` computed on first access, then kept.
///
/// The closure is released once the value is computed (it may hold a whole source event).
/// - Note: thread-safe: computed outside the lock (the closure may run user code); two threads
///   racing on the first access may both compute it, the first stored value wins.
@usableFromInline
final class LazyArray<Element>: @unchecked Sendable {
  // @unchecked: the state is reached only through its lock. The closure is not `@Sendable`
  // (it runs the user's `mapElements` closure); it runs on the thread that reads
  // `sequence`, as the contract documents for those operators.
  @usableFromInline
  enum State {
    case pending(() -> [Element])
    case computed([Element])
  }

  @usableFromInline let state: LockedState<State>

  init(_ compute: @escaping () -> [Element]) {
    state = LockedState(.pending(compute))
  }

  @usableFromInline
  var value: [Element] {
    let current = state.withLock { state -> State in state }
    switch current {
    case .computed(let array):
      return array
    case .pending(let compute):
      // Computed outside the lock: `compute` runs user code.
      let array = compute()
      let (stored, dropped) = state.withLock { state -> ([Element], State?) in
        if case .computed(let existing) = state { return (existing, nil) }
        let old = state
        state = .computed(array)
        return (array, old)
      }
      _ = dropped  // the closure (and what it holds) is released here, outside the lock
      return stored
    }
  }
}
