import Dispatch
import Synchronization

// How mutations become events: registration with its replay marker, the locked read and mutate
// paths, and the hand-off loop that builds each event on `delivered` and gives it to the delivery
// producer.

extension ObservableArray {
  @inlinable
  func register(_ observer: EventObserver<Event>) -> any DisposableType {
    let token = tokens.wrappingAdd(1, ordering: .relaxed).newValue
    let relay = ObservableArrayObserver(token: token, observer: observer.event, registered: observer.registered)
    // The relay is registered before its replay marker is queued (below), so the producer
    // delivers the marker to it; until then the relay ignores the events it receives. The end
    // (the array deallocated) comes from the delivery producer.
    let disposable = delivery.observe(with: EventObserver({ relay.receive($0) }, finished: observer.finished))
    let first = state.withLock { enqueue(.replay(token: token), in: &$0) }
    // Budget 0: `observe` hands off its own replay marker, nothing queued by others.
    handOff(first, budget: 0)
    return disposable
  }

  /// Registers `observer` for exactly the events after the returned snapshot (no replay).
  @usableFromInline
  func observeAfterSnapshot(
    _ observer: @escaping (Event) -> Void
  ) -> (snapshot: [Element], disposable: any DisposableType) {
    let token = tokens.wrappingAdd(1, ordering: .relaxed).newValue
    let relay = ObservableArrayObserver(token: token, observer: observer, registered: nil)
    let disposable = delivery.observe { relay.receive($0) }
    let (snapshot, first) = state.withLock { state -> ([Element], ObservableArrayWork<Element>?) in
      (state.publishedArrayLocked, enqueue(.start(token: token), in: &state))
    }
    handOff(first, budget: 0)
    return (snapshot, disposable)
  }

  /// Reads the array a caller on this thread sees.
  @inlinable
  func read<Result>(_ body: ([Element]) -> Result) -> Result {
    state.withLock { state in
      if state.batch == nil { return body(state.array) }
      return body(state.visibleArrayLocked(thread: currentThreadID()))
    }
  }

  /// Applies `body` to the array and records its operation, in one critical section; then hands
  /// the event off. Waits first while another thread's batch runs.
  @inlinable
  @discardableResult
  func mutate<Result>(_ body: (inout [Element]) -> (Result, ObservableArrayOperation<Element>)) -> Result {
    while true {
      // Set when this call became the hand-off thread: the operation to deliver (moved, not copied,
      // out of the lock).
      var first: ObservableArrayOperation<Element>? = nil
      let outcome = state.withLock { state -> Result? in
        if state.batch != nil, state.isBlockedLocked(thread: currentThreadID()) { return nil }
        let (result, operation) = body(&state.array)
        if let operation = state.recordLocked(consume operation) {
          first = enqueue(consume operation, in: &state)
        }
        return result
      }
      guard let result = consume outcome else {
        waitForBatch()
        continue
      }
      if let first = first.take() { handOff(operation: consume first) }
      return result
    }
  }

  /// The array and its version as a mutation on this thread would find them, waiting first while
  /// another thread's batch runs.
  @usableFromInline
  func snapshotForMutation() -> (array: [Element], version: Int) {
    while true {
      let snapshot = state.withLock { state -> ([Element], Int)? in
        if state.batch != nil, state.isBlockedLocked(thread: currentThreadID()) { return nil }
        return (state.array, state.version)
      }
      if let snapshot { return snapshot }
      waitForBatch()
    }
  }

  /// Blocks until the batch of another thread ends.
  @usableFromInline
  func waitForBatch() {
    batchGate.wait()
    batchGate.signal()
  }

  /// Queues `work`, in the critical section (the caller holds the state lock) that decided it, or
  /// returns it when the caller took the hand-off rights from idle: the caller is then the hand-off
  /// thread and passes it to ``handOff(_:budget:)`` once out of the lock.
  @inlinable
  func enqueue(
    _ work: __owned ObservableArrayWork<Element>,
    in state: inout ObservableArrayState<Element>
  ) -> ObservableArrayWork<Element>? {
    // Counted under the state lock, where the outbox is pushed and swapped: the hand-off thread
    // swaps it out only after reading the count, so the push below, in this critical section,
    // precedes the swap that takes it.
    if handOffRights.takeOrCountLocked() { return work }  // from idle: nothing queued before it
    state.outbox.push(SentWork(work, sender: currentThreadID()))
    return nil
  }

  /// `enqueue(_:in:)` for a mutation's operation: returns it when the caller took the rights from
  /// idle (then it passes it to ``handOff(operation:budget:)``).
  @inlinable @inline(__always)
  func enqueue(
    _ operation: __owned ObservableArrayOperation<Element>,
    in state: inout ObservableArrayState<Element>
  ) -> ObservableArrayOperation<Element>? {
    if handOffRights.takeOrCountLocked() { return consume operation }
    state.outbox.push(SentWork(.operation(consume operation), sender: currentThreadID()))
    return nil
  }

  /// The hand-off of a mutation's operation when the caller took the rights from idle: moves the
  /// operation into its event without wrapping it, then gives the rights back, performing at most
  /// `budget` items queued by other threads meanwhile (see `Core/DeliveryRights.swift`).
  @inlinable
  func handOff(operation: __owned ObservableArrayOperation<Element>, budget: Int = drainHandOffLimit) {
    handOffAccess.enter()
    deliver(consume operation)
    handOffAccess.leave()  // before the count: another thread may take the role next
    let missed = handOffRights.giveBack(1)
    if missed != 0 { drainQueued(missed: missed, budget: budget) }
  }

  /// Applies `operation` to `delivered` and hands its event to the delivery producer.
  @inlinable @inline(__always)
  func deliver(_ operation: __owned ObservableArrayOperation<Element>) {
    operation.apply(to: &delivered)
    delivery.next(owned: .event(ObservableArrayEvent(sequence: delivered, operation: consume operation)))
  }

  /// After `enqueue(_:in:)`: performs `first` when the caller took the rights from idle and gives
  /// them back; does nothing when `first` is `nil` (queued behind the holder). The work queued
  /// meanwhile is performed in order, building each event on `delivered`, at most `budget` items of
  /// other threads, as ``EventProducer``'s drain does: then the rest goes to a worker. A mutating
  /// call performs at most `drainHandOffLimit` (64) items of others; `observe` and `flush()` none.
  @inlinable
  func handOff(_ first: __owned ObservableArrayWork<Element>?, budget: Int) {
    guard let first else { return }
    perform(first)
    let missed = handOffRights.giveBack(1)
    if missed != 0 { drainQueued(missed: missed, budget: budget) }
  }

  /// Performs one work item (the hand-off thread only), outside the lock: delivery runs observers,
  /// which may mutate or observe this array (their work is queued, and performed by the hand-off
  /// loop after the current event).
  @inlinable @inline(__always)
  func perform(_ work: ObservableArrayWork<Element>) {
    handOffAccess.enter()
    defer { handOffAccess.leave() }  // before the count: another thread may take the role next
    switch work {
    case .operation(let operation):
      deliver(operation)
    case .replay(let token):
      delivery.next(
        .replay(token: token, ObservableArrayEvent(sequence: delivered, operation: .reset(array: delivered)))
      )
    case .start(let token):
      delivery.next(.replay(token: token, nil))
    case .barrier(let waiter):
      delivery.submit(.resume(waiter))
    }
  }
}

// The array as its hand-off rights' drainer: `handOffBatch` is the hand-off thread's queue, refilled
// from `state.outbox` in one lock.
extension ObservableArray: RightsDrainer {
  @inlinable
  func refillDraining() {
    if handOffBatch.isEmpty { state.withLock { swap(&$0.outbox, &handOffBatch) } }
  }

  @inlinable
  func nextSenderDraining() -> UInt? {
    handOffBatch.firstSender()
  }

  @inlinable
  func performNextDraining() {
    perform(handOffBatch.pop().unsafelyUnwrapped.work)
  }

  @inlinable @inline(never)
  func drainQueued(missed: Int, budget: Int) {
    handOffRights.drain(self, missed: missed, budget: budget)
  }

  @usableFromInline
  func drainAsWorker() {
    handOffRights.drainAsWorker(self)
  }
}
