import Synchronization

// # How delivery is serialized without a lock on the hot path
//
// A producer serializes its work (events, registrations, purges, the end, a waiting sender's
// resumption) with its `DeliveryRights` (`DeliveryRights.swift`: the protocol, the bounded work for
// others and the memory orderings): `next` takes them when the producer is idle (one
// compare-exchange, the delivery, one subtraction: no lock, no allocation), else pushes its work
// into `pending` and counts it; the holder performs the batch it swaps out of `pending` in one lock.
// The producer is the rights' `RightsDrainer`: `batch` is its drainer-owned queue.
//
// Registration goes through the same serialization (`Work.register`), so the replay and the live
// events meet exactly: no duplicate, no gap.
//
// `send(contentsOf:)` and `flush()` await a delivery without a waiting thread
// (`EventProducer+Await.swift`): when contended they queue the work and, right behind it,
// `Work.resume` with their task's `DeliveryWaiter`; the holder performs work in queue order, so it
// resumes the task once the work before it is performed. A cancelled task resumes itself at once
// through the same waiter; the queued `.resume` then does nothing.
//
// Budgets (items queued by others a call performs before it leaves the rights vacant, for the next
// thread that counts work or a worker, see `DeliveryRights.swift`):
// `next`, `finish` and `send`: `drainHandOffLimit` (64); `observe`: 0 (its own registration and
// replay only); `dispose()`: 0 (no event at all).
//
// # Disposal never waits
//
// `dispose()` sets the observation's flag first (the drainer checks it before each delivery, so no
// new delivery to that observer starts once it is set) and decrements `liveObservers`
// (`observerCount` is exact when it returns). Then it asks for a purge, which removes the
// disposed observers and releases their closures:
// - the producer is idle (compare-exchange 0 → 1 succeeds): this thread purges at once and gives
//   the rights back; what others queued meanwhile is left vacant (budget 0, see above);
// - another thread, or this one from inside a delivery, holds the rights: it raises
//   `purgeRequested` and queues a `.purge` (counted in the rights like any work, so the holder performs
//   it before it leaves) and returns. The holder checks `purgeRequested` between work items, so the
//   closure is released once the delivery running now returns, not behind the whole backlog.
// No path waits, spins or yields for another thread: a delivery to the observer already running on
// another thread runs to its end (RxSwift, ReactiveSwift and Combine behave the same). Operators
// that need "not running any more" get it from their own state, checked under their own
// serialization. `Verification/Drain.pml` models this protocol, the vacancy and its worker included, and
// checks it with spin.

extension EventProducer: RightsDrainer {
  @inlinable
  func register(_ observer: EventObserver<Event>) -> any DisposableType {
    let observation = Observation(producer: self)
    let box = ObserverBox(
      observer: observer,
      observation: observation,
      producerGate: observer.pressure == nil ? nil : gate
    )
    liveObservers.add(1, ordering: .relaxed)
    liveObservations.add(1, ordering: .relaxed)
    if isManaged { retainWhileObserved() }
    // Budget 0: `observe` performs its own registration and replay, nothing queued by others.
    submit(.register(box), budget: 0)
    return observation
  }

  /// The one way to take the delivery rights: performs `work` at once when the producer is idle,
  /// then gives the rights back, performing at most `budget` items queued by others meanwhile; else
  /// queues it behind the holder (``submitContended(_:budget:)``).
  // Always inlined, so that for `next` the work enum folds away: one compare-exchange, the
  // delivery, one subtraction, as before.
  @inlinable @inline(__always)
  func submit(_ work: Work, budget: Int = drainHandOffLimit) {
    if !performIfIdle(work, budget: budget) { submitContended(work, budget: budget) }
  }

  /// Performs `work` at once if the producer is idle (see ``submit(_:budget:)``); returns `false`,
  /// doing nothing, when another thread (or this one, from inside a delivery) holds the rights.
  @inlinable @inline(__always)
  func performIfIdle(_ work: Work, budget: Int = drainHandOffLimit) -> Bool {
    withRightsIfIdle(budget: budget) { perform(work) }
  }

  /// If the producer is idle, takes the delivery rights, runs `body` (the holder's work in place of
  /// one item), gives them back (``finishDraining(accounted:budget:)``) and returns `true`; else
  /// returns `false`, doing nothing. Every fast path (`next`, the bursts, the inbox's direct path)
  /// is this.
  @inlinable @inline(__always)
  func withRightsIfIdle(budget: Int = drainHandOffLimit, _ body: () -> Void) -> Bool {
    guard rights.takeIfIdle() else { return false }
    body()
    finishDraining(accounted: 1, budget: budget)
    return true
  }

  /// Queues `work` behind the current holder of the delivery rights, or takes them if it has left
  /// then performs at most `budget` queued items of others. A purge whose
  /// thread takes the rights so is done at once, before anything queued.
  // Never inlined: the fast path of `next` stays short enough that the delivery it calls is inlined
  // into a user's sending loop (with this path inlined, `deliverDraining` was not: +18 instructions
  // per event through a map/filter/map chain).
  @inlinable @inline(never)
  func submitContended(_ work: Work, budget: Int = drainHandOffLimit) {
    let sender = currentThreadID()
    withPending { $0.queue.push(SentWork(work, sender: sender)) }
    if let missed = rights.counted(1) {
      if case .purge = work { purgeDraining() }  // the queued `.purge` then finds nothing to do
      drainQueued(missed: missed, budget: budget)
    }
  }

  /// Performs one work item (the holder of the delivery rights only).
  @inlinable @inline(__always)
  func perform(_ work: Work) {
    switch work {
    case .event(let event): deliverDraining(event)
    case .register(let box): registerDraining(box)
    case .purge: purgeDraining()
    case .finish: endDraining()
    case .resume(let waiter): waiter.delivered()
    }
  }

  /// Gives the delivery rights back after `accounted` items performed directly; performs what was
  /// queued meanwhile, at most `budget` items of others, then leaves the rights vacant.
  @inlinable @inline(__always)
  func finishDraining(accounted: Int, budget: Int = drainHandOffLimit) {
    let missed = rights.giveBack(accounted)
    if missed != 0 { drainQueued(missed: missed, budget: budget) }
  }

  // The producer as the rights' drainer: `batch` is the drainer-owned queue, refilled from
  // `pending` in one lock.

  @inlinable
  func refillDraining() {
    if batch.isEmpty { withPending { swap(&$0.queue, &batch) } }
  }

  @inlinable
  func nextSenderDraining() -> UInt? {
    batch.firstSender()
  }

  @inlinable
  func performNextDraining() {
    perform(batch.pop().unsafelyUnwrapped.work)
    // relaxed: a hint only; purgeDraining's exchange is what orders the purge after the flags.
    if purgeRequested.load(ordering: .relaxed) { purgeDraining() }
  }

  @inlinable @inline(never)
  func drainQueued(missed: Int, budget: Int) {
    rights.drain(self, missed: missed, budget: budget)
  }

  @usableFromInline
  func drainAsWorker() {
    rights.drainAsWorker(self)
  }

  /// Delivers `event` to every registered observer that is not disposed, and records it for replay.
  @inlinable
  func deliverDraining(_ event: Event) {
    checkRights()
    // After the end an event reaches nobody and enters no replay: the end cleared
    // `recordsReplay` and the observers, so this costs no check of its own.
    if recordsReplay { replay.append(event) }
    // Registrations and purges never run inside this loop (they are work items of their own), so
    // the observers are stable while they run.
    guard let firstObserver else { return }
    firstObserver._withUnsafeGuaranteedRef { box in
      if !box.observation.disposed.load(ordering: .acquiring) { box.handler(event) }
    }
    guard let otherObservers else { return }
    for index in 0..<(observersCount &- 1) {
      otherObservers[index]._withUnsafeGuaranteedRef { box in
        if !box.observation.disposed.load(ordering: .acquiring) { box.handler(event) }
      }
    }
  }

  /// Delivers the replay to a new observer, then adds it to the observers.
  @inlinable
  func registerDraining(_ box: ObserverBox<Event>) {
    checkRights()
    let observation = box.observation
    for offset in 0..<replay.count {
      if observation.disposed.load(ordering: .acquiring) { break }
      box.handler(replay[offset])
    }
    if let registered = box.registered {
      box.registered = nil
      if !observation.disposed.load(ordering: .acquiring) { registered() }
    }
    guard !observation.disposed.load(ordering: .acquiring) else { return }
    if hasEnded {
      box.end(countingIn: self)  // registered after the end: the replay, then the end, at once
      return
    }
    // The first observer takes `firstObserver`: a producer with one observer allocates no buffer.
    if observersCount > observersCapacity { growObserversDraining() }
    setObserverDraining(Unmanaged.passRetained(box), at: observersCount)
    observersCount += 1
  }

  /// Delivers the end: each observer not disposed receives `finished`, in order, and is released.
  /// A `finished` closure runs while this thread holds the rights: what it sends, observes or
  /// disposes is queued (a later `next` then reaches nobody), and the buffer is stable meanwhile.
  @inlinable
  func endDraining() {
    checkRights()
    hasEnded = true
    recordsReplay = false
    let count = observersCount
    for index in 0..<count {
      observerDraining(at: index)._withUnsafeGuaranteedRef { $0.end(countingIn: self) }
    }
    observersCount = 0
    for index in 0..<count { observerDraining(at: index).release() }
    firstObserver = nil
  }

  /// Called once by the observation's first `dispose()`, after it has set the observation's flag.
  /// Never waits: see "Disposal never waits" above.
  @usableFromInline
  func observationDisposed() {
    liveObservers.subtract(1, ordering: .relaxed)
    liveObservations.subtract(1, ordering: .relaxed)
    // Budget 0: `dispose()` delivers no event; what others queued is left vacant.
    if !performIfIdle(.purge, budget: 0) {
      // releasing: the flag set before this is visible to the drainer whose exchange takes it.
      purgeRequested.store(true, ordering: .releasing)
      submitContended(.purge, budget: 0)
    }
    if isManaged { releaseWhenUnobserved() }
  }

  @usableFromInline
  func retainWhileObserved() {
    withLifecycle { state in
      state.managedObservers += 1
      if state.managedObservers == 1 { state.keepAlive = state.owner ?? self }
    }
  }

  @usableFromInline
  func releaseWhenUnobserved() {
    let released = withLifecycle { state -> AnyObject? in
      state.managedObservers -= 1
      guard state.managedObservers == 0 else { return nil }
      defer { state.keepAlive = nil }
      return state.keepAlive
    }
    // Dropped outside the lock: it may be the last reference, and deinit disposes user objects.
    _ = released
  }
}

extension EventProducer {
  /// Stops if this thread does not hold the delivery rights (debug builds; see
  /// `DeliveryRights.check()`): every function that touches the drainer-owned state calls it.
  @inlinable @inline(__always)
  func checkRights() {
    rights.check()
  }
}
