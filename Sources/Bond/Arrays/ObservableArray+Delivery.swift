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
    if let first { handOff(first, budget: 0) }
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
    if let first { handOff(first, budget: 0) }
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
        if let operation = state.recordLocked(consume operation) { first = enqueue(consume operation, in: &state) }
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
  /// returns it when no thread hands off: the caller is then the hand-off thread and passes it to
  /// ``handOff(_:budget:)`` once out of the lock.
  @inlinable
  func enqueue(
    _ work: __owned ObservableArrayWork<Element>,
    in state: inout ObservableArrayState<Element>
  ) -> ObservableArrayWork<Element>? {
    if takeHandOffLocked() { return work }
    state.outbox.push(SentWork(work, sender: currentThreadID()))
    return nil
  }

  /// Counts one work item (the caller holds the state lock); returns whether the caller became the
  /// hand-off thread (the count was 0).
  @inlinable @inline(__always)
  func takeHandOffLocked() -> Bool {
    // Every increment is made under the state lock, and a count of 0 has no hand-off thread to
    // subtract from it: when the count is 0, nothing else can change it until this critical section
    // ends, so a plain store takes the role (no read-modify-write on the uncontended path).
    // acquiring: acquires `delivered` as the last hand-off thread released it (its subtraction).
    if handOffs.load(ordering: .acquiring) == 0 {
      handOffs.store(1, ordering: .relaxed)
      return true
    }
    // A hand-off thread runs, and may subtract at any moment (even to 0: then this call takes the
    // role). acquiringAndReleasing: from 0, as above. Above 0 the push needs no ordering of its
    // own: the hand-off thread pops under this lock, after it has read this count.
    return handOffs.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0
  }

  /// `enqueue(_:in:)` for a mutation's operation: returns it when the caller became the hand-off
  /// thread (then it passes it to ``handOff(operation:budget:)``).
  @inlinable @inline(__always)
  func enqueue(
    _ operation: __owned ObservableArrayOperation<Element>,
    in state: inout ObservableArrayState<Element>
  ) -> ObservableArrayOperation<Element>? {
    if takeHandOffLocked() { return consume operation }
    state.outbox.push(SentWork(.operation(consume operation), sender: currentThreadID()))
    return nil
  }

  /// ``handOff(_:budget:)`` for a mutation's operation: the uncontended path of a mutation, which
  /// moves the operation into its event without wrapping it.
  @inlinable
  func handOff(operation: __owned ObservableArrayOperation<Element>, budget: Int = drainHandOffLimit) {
    handOffAccess.enter()
    deliver(consume operation)
    handOffAccess.leave()  // before the count: another thread may take the role next
    // acquiringAndReleasing: releases `delivered` to the next thread that takes the role from 0.
    if handOffs.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue != 0 {
      handOffQueued(budget: budget)
    }
  }

  /// Applies `operation` to `delivered` and hands its event to the delivery producer.
  @inlinable @inline(__always)
  func deliver(_ operation: __owned ObservableArrayOperation<Element>) {
    operation.apply(to: &delivered)
    delivery.next(owned: .event(ObservableArrayEvent(sequence: delivered, operation: consume operation)))
  }

  /// Performs `first` (the caller became the hand-off thread), then the work queued meanwhile, in
  /// order: builds each event on `delivered` and hands it to the delivery producer. Uncontended,
  /// that is one subtraction after the delivery and no lock. The caller stays the hand-off thread
  /// until the count is back to 0 or it has performed `budget` items queued by other threads:
  /// then, if other threads keep mutating faster than the observers take the events, it hands the
  /// rest of the loop to a worker (one dispatch, nobody waits for it) and returns, as
  /// ``EventProducer``'s drain does. Its own work (mutations from inside the observers it runs)
  /// does not count. A mutating call performs at most `drainHandOffLimit` (1,024) items of others;
  /// `observe` none.
  @inlinable
  func handOff(_ first: __owned ObservableArrayWork<Element>, budget: Int = drainHandOffLimit) {
    perform(first)
    // acquiringAndReleasing: releases `delivered` to the next thread that takes the role from 0.
    if handOffs.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue != 0 {
      handOffQueued(budget: budget)
    }
  }

  /// The rest of ``handOff(_:budget:)``: pops and performs the queued work until the count is 0.
  // Inlinable so that it specializes for the element type; never inlined, so that the uncontended
  // path of a mutation stays short.
  @inlinable @inline(never)
  func handOffQueued(budget: Int) {
    let thread = currentThreadID()
    var budget = budget
    repeat {
      // The count is above 0, so an item is queued: it was pushed in the critical section that
      // counted it, which this lock orders before the pop.
      guard let item = state.withLock({ $0.outbox.pop() }) else {
        preconditionFailure("ObservableArray: the hand-off count and the outbox disagree")
      }
      if item.sender != thread {
        if budget == 0 {
          // Still the hand-off thread (the count includes `item`): the worker continues in order.
          // The dispatch orders this thread's writes to `delivered` before the worker's.
          let rest = UncheckedSendable((self, item.work))
          DispatchQueue.global().async { rest.value.0.handOff(rest.value.1, budget: .max) }
          return
        }
        budget -= 1
      }
      perform(item.work)
    } while handOffs.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue != 0
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
