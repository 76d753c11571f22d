/// The state of an ``ObservableArray`` behind its lock: the elements, the batch in progress and
/// the deliveries waiting to be handed to the delivery producer in mutation order.
///
/// Pure bookkeeping: no user code runs in its methods (the caller holds the lock).
/// - Note: not thread-safe; reached only through the array's `LockedState`.
@usableFromInline
struct ObservableArrayState<Element> {
  /// The current elements (in a batch: with the batch's operations so far applied).
  @usableFromInline var array: [Element]
  /// The batch in progress, if any.
  @usableFromInline var batch: Batch?
  /// Work queued while another thread (or an outer frame of this one) hands off: as many items as
  /// the array's `handOffRights` count minus what the hand-off thread has taken out.
  @usableFromInline var outbox = WorkQueue<SentWork<ObservableArrayWork<Element>>>()
  /// Counts mutations, so that a caller that computed outside the lock can tell nothing changed.
  @usableFromInline var version = 0

  @usableFromInline
  struct Batch {
    /// The thread running `performBatchUpdates`; only it mutates until the batch ends.
    @usableFromInline var owner: UInt
    /// Nesting depth of `performBatchUpdates` calls on the owner thread.
    @usableFromInline var depth: Int
    /// The batch's operations so far (nested batches flattened into it).
    @usableFromInline var operations: [ObservableArrayOperation<Element>]
    /// The array before the batch: what other threads read, and what a new observer is replayed.
    @usableFromInline var base: [Element]

    @inlinable
    init(owner: UInt, base: [Element]) {
      self.owner = owner
      self.depth = 1
      self.operations = []
      self.base = base
    }
  }

  @inlinable
  init(array: [Element]) {
    self.array = array
  }

  /// Whether a batch of another thread is running (then the caller must wait to mutate).
  @inlinable
  func isBlockedLocked(thread: UInt) -> Bool {
    if let batch { return batch.owner != thread }
    return false
  }

  /// The array a reader on `thread` sees: the batch's base for other threads, so they never see
  /// a batch half done.
  @inlinable
  func visibleArrayLocked(thread: UInt) -> [Element] {
    if let batch, batch.owner != thread { return batch.base }
    return array
  }

  /// The array as of the last queued operation (the point in the event stream where work queued
  /// now will be delivered).
  @inlinable
  var publishedArrayLocked: [Element] {
    batch?.base ?? array
  }

  /// Records the operation just applied to `array`: in a batch it joins the batch (and `nil` is
  /// returned), otherwise it is returned for the caller to queue (`ObservableArray.enqueue(_:in:)`).
  @inlinable
  mutating func recordLocked(
    _ operation: __owned ObservableArrayOperation<Element>
  ) -> ObservableArrayOperation<Element>? {
    version &+= 1
    guard batch != nil else { return operation }
    if case .batch(let operations) = operation {
      batch!.operations.append(contentsOf: operations)
    } else {
      batch!.operations.append(operation)
    }
    return nil
  }

  /// Joins the batch that `thread` already runs (a nested `performBatchUpdates`). Returns `false`
  /// when `thread` runs no batch: it must then take the batch gate and call `startBatchLocked`.
  @inlinable
  mutating func joinBatchLocked(thread: UInt) -> Bool {
    guard batch != nil, batch!.owner == thread else { return false }
    batch!.depth += 1
    return true
  }

  /// Starts a batch on `thread`, which holds the batch gate (so no other batch runs).
  @inlinable
  mutating func startBatchLocked(thread: UInt) {
    assert(batch == nil, "a batch started while another one runs")
    batch = Batch(owner: thread, base: array)
  }

  /// Leaves one level of the batch. At the outermost level, ends it and returns its single
  /// operation, for the caller to queue.
  @inlinable
  mutating func endBatchLocked() -> ObservableArrayOperation<Element>? {
    batch!.depth -= 1
    guard batch!.depth == 0 else { return nil }
    let operations = batch!.operations
    batch = nil
    return .batch(operations)
  }
}
