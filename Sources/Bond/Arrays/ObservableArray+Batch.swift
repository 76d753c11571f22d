// Batches: `performBatchUpdates(_:)` and `replace(with:performDiff:)`, which diffs and commits as one
// `.batch` event.

extension ObservableArray {
  /// Runs `updates`, which mutates this array (it receives it as argument), and sends all its
  /// changes as one `.batch` event when it returns. A `performBatchUpdates` inside it joins this
  /// batch (still one event). The batch event is sent even when `updates` changes nothing.
  ///
  /// While the closure runs, the array belongs to the calling thread: another thread's mutation
  /// (or batch) waits until the batch ends, and its reads give the array as it was before the batch.
  /// So the closure must not wait for another thread that mutates this array.
  public func performBatchUpdates(_ updates: (ObservableArray<Element>) -> Void) {
    performBatchUpdates(handOffBudget: drainHandOffLimit, updates)
  }

  /// ``performBatchUpdates(_:)``, handing off at most `handOffBudget` work items on this thread
  /// (see ``handOff(_:budget:)``).
  @usableFromInline
  func performBatchUpdates(handOffBudget: Int, _ updates: (ObservableArray<Element>) -> Void) {
    let thread = currentThreadID()
    if !state.withLock({ $0.joinBatchLocked(thread: thread) }) {
      batchGate.wait()  // blocks while another thread's batch runs
      state.withLock { $0.startBatchLocked(thread: thread) }
    }
    // Outside the lock: user code, whose mutations of this array join the batch.
    updates(self)
    let (ended, first) = state.withLock { state -> (Bool, ObservableArrayWork<Element>?) in
      guard let operation = state.endBatchLocked() else { return (false, nil) }
      return (true, enqueue(.operation(operation), in: &state))
    }
    if ended { batchGate.signal() }
    handOff(first, budget: handOffBudget)
  }
}

extension ObservableArray where Element: Equatable {
  /// Replaces the elements with `array`.
  ///
  /// With `performDiff`, sends one `.batch` holding a minimal edit script (the standard library's
  /// `difference(from:)`: removals from the highest index down, then insertions from the lowest
  /// up, contiguous runs merged), which lets a list view animate only what changed. Without it,
  /// sends a `.reset`.
  ///
  /// Completes in bounded time however fast other threads mutate the array: the diff is first
  /// computed outside the lock (`==` is user code) and committed if nobody mutated the array
  /// meanwhile; after three such tries lose to other threads, the diff is
  /// computed holding the array's mutation rights (as in ``performBatchUpdates(_:)``: other
  /// threads' mutations wait for it, their reads see the array before it), and always commits.
  public func replace(with array: [Element], performDiff: Bool) {
    guard performDiff else {
      self.array = array
      return
    }
    for _ in 0..<Self.optimisticReplaceTries where replaceIfUnchanged(with: array) { return }
    performBatchUpdates(handOffBudget: drainHandOffLimit) { _ in
      // This thread owns the batch: no other thread mutates until it ends, so the diff holds.
      let old = state.withLock { $0.array }
      let operation = ObservableArrayOperation.difference(from: old, to: array)
      let replaced = state.withLock { state -> [Element] in
        let replaced = state.array
        state.array = array
        _ = state.recordLocked(operation)  // joins the batch: delivered when it ends
        return replaced
      }
      _ = replaced  // released outside the lock
    }
  }

  /// How many times ``replace(with:performDiff:)`` diffs without holding the array before it takes
  /// the mutation rights.
  @usableFromInline static var optimisticReplaceTries: Int { 3 }

  /// One optimistic try of ``replace(with:performDiff:)``: diffs a snapshot outside the lock and
  /// commits only if the array is unchanged since. Returns whether it committed.
  @usableFromInline
  func replaceIfUnchanged(with array: [Element]) -> Bool {
    let (old, version) = snapshotForMutation()
    let operation = ObservableArrayOperation.difference(from: old, to: array)
    let outcome = state.withLock { state -> ([Element], ObservableArrayWork<Element>?)? in
      guard state.version == version, !state.isBlockedLocked(thread: currentThreadID()) else { return nil }
      let old = state.array
      state.array = array
      guard let operation = state.recordLocked(operation) else { return (old, nil) }
      return (old, enqueue(.operation(operation), in: &state))
    }
    guard let (replaced, first) = outcome else { return false }
    _ = replaced  // released outside the lock
    handOff(first, budget: drainHandOffLimit)
    return true
  }
}
