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
    var claimed = false
    let first = state.withLock { enqueue(.replay(token: token), in: &$0, claimed: &claimed) }
    // Budget 0: `observe` hands off its own replay marker, nothing queued by others.
    handOff(first, claimed: claimed, budget: 0)
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
    var claimed = false
    let (snapshot, first) = state.withLock { state -> ([Element], ObservableArrayWork<Element>?) in
      (state.publishedArrayLocked, enqueue(.start(token: token), in: &state, claimed: &claimed))
    }
    handOff(first, claimed: claimed, budget: 0)
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
      // Set when this call took vacant rights: its operation is queued behind the backlog it drains.
      var claimed = false
      let outcome = state.withLock { state -> Result? in
        if state.batch != nil, state.isBlockedLocked(thread: currentThreadID()) { return nil }
        let (result, operation) = body(&state.array)
        if let operation = state.recordLocked(consume operation) {
          first = enqueue(consume operation, in: &state, claimed: &claimed)
        }
        return result
      }
      guard let result = consume outcome else {
        waitForBatch()
        continue
      }
      if let first = first.take() {
        handOff(operation: consume first)
      } else if claimed {
        handOffRights.drain(self, missed: 0, budget: drainHandOffLimit)
      }
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
  /// thread and passes it to ``handOff(_:claimed:budget:)`` once out of the lock. `claimed` is set
  /// when the caller took vacant rights: its work is queued behind the backlog, which it drains.
  @inlinable
  func enqueue(
    _ work: __owned ObservableArrayWork<Element>,
    in state: inout ObservableArrayState<Element>,
    claimed: inout Bool
  ) -> ObservableArrayWork<Element>? {
    // Counted under the state lock, where the outbox is pushed and swapped: the hand-off thread
    // swaps it out only after reading the count, so the push below, in this critical section,
    // precedes the swap that takes it.
    let missed = handOffRights.countedLocked()
    if missed == 1 { return work }  // from idle: nothing queued before it
    claimed = missed == 0
    state.outbox.push(SentWork(work, sender: currentThreadID()))
    return nil
  }

  /// `enqueue(_:in:claimed:)` for a mutation's operation: returns it when the caller took the
  /// rights from idle (then it passes it to ``handOff(operation:budget:)``).
  @inlinable @inline(__always)
  func enqueue(
    _ operation: __owned ObservableArrayOperation<Element>,
    in state: inout ObservableArrayState<Element>,
    claimed: inout Bool
  ) -> ObservableArrayOperation<Element>? {
    let missed = handOffRights.countedLocked()
    if missed == 1 { return consume operation }
    claimed = missed == 0
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
    if missed != 0 { handOffRights.drain(self, missed: missed, budget: budget) }
  }

  /// Applies `operation` to `delivered` and hands its event to the delivery producer.
  @inlinable @inline(__always)
  func deliver(_ operation: __owned ObservableArrayOperation<Element>) {
    operation.apply(to: &delivered)
    delivery.next(owned: .event(ObservableArrayEvent(sequence: delivered, operation: consume operation)))
  }

  /// After `enqueue(_:in:claimed:)`: performs `first` (the caller took the rights from idle) and
  /// gives them back, or drains (it took vacant rights), or does nothing (queued behind the holder).
  /// The work queued meanwhile is performed in order, building each event on `delivered`, at most
  /// `budget` items of other threads, as ``EventProducer``'s drain does: then the rest is left to
  /// the next holder or a worker. A mutating call performs at most `drainHandOffLimit` (1,024)
  /// items of others; `observe` and `flush()` none.
  @inlinable
  func handOff(_ first: __owned ObservableArrayWork<Element>?, claimed: Bool, budget: Int) {
    if let first {
      perform(first)
      let missed = handOffRights.giveBack(1)
      if missed != 0 { handOffRights.drain(self, missed: missed, budget: budget) }
    } else if claimed {
      handOffRights.drain(self, missed: 0, budget: budget)
    }
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

  @usableFromInline
  func drainAsWorker() {
    handOffRights.drainAsWorker(self)
  }
}
