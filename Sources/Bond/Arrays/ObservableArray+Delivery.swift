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
    let first = state.withLock { $0.enqueueLocked(.replay(token: token)) }
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
      (state.publishedArrayLocked, state.enqueueLocked(.start(token: token)))
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
      let outcome = state.withLock { state -> (Result, ObservableArrayWork<Element>?)? in
        if state.batch != nil, state.isBlockedLocked(thread: currentThreadID()) { return nil }
        let (result, operation) = body(&state.array)
        return (result, state.recordLocked(operation))
      }
      guard let (result, first) = outcome else {
        waitForBatch()
        continue
      }
      if let first { handOff(first) }
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

  /// Performs `first`, then the work queued meanwhile, in order: builds each event on `delivered`
  /// and hands it to the delivery producer. The caller became the hand-off thread; it stays so
  /// until the outbox is empty or it has performed `budget` items queued by other threads: then,
  /// if other threads keep mutating faster than the observers take the events, it hands the rest
  /// of the loop to a worker (one dispatch, nobody waits for it) and returns, as ``EventProducer``'s
  /// drain does. Its own work (mutations from inside the observers it runs) does not count. A
  /// mutating call performs at most `drainHandOffLimit` (1,024) items of others; `observe` none.
  @inlinable
  func handOff(_ first: ObservableArrayWork<Element>, budget: Int = drainHandOffLimit) {
    let thread = currentThreadID()
    var next: SentWork<ObservableArrayWork<Element>>? = SentWork(first, sender: thread)
    var budget = budget
    handOffAccess.enter()  // left before the dispatch below, or with the role (under the lock)
    while let item = next.take() {
      if item.sender != thread {
        if budget == 0 {
          // Still the hand-off role (`isHandingOff` stays set): the worker continues in order.
          // The dispatch orders this thread's writes to `delivered` before the worker's.
          let rest = UncheckedSendable((self, item.work))
          handOffAccess.leave()  // before the worker can enter
          DispatchQueue.global().async { rest.value.0.handOff(rest.value.1, budget: .max) }
          return
        }
        budget -= 1
      }
      // Outside the lock: delivery runs observers, which may mutate or observe this array (their
      // work is queued, and performed by this loop after the current event).
      switch item.work {
      case .operation(let operation):
        operation.apply(to: &delivered)
        delivery.next(.event(ObservableArrayEvent(sequence: delivered, operation: operation)))
      case .replay(let token):
        delivery.next(
          .replay(token: token, ObservableArrayEvent(sequence: delivered, operation: .reset(array: delivered)))
        )
      case .start(let token):
        delivery.next(.replay(token: token, nil))
      }
      next = state.withLock { state in
        let next = state.nextHandOffLocked()
        // Left under the lock when the role ends: another thread may take it right after.
        if next == nil { handOffAccess.leave() }
        return next
      }
    }
  }
}
