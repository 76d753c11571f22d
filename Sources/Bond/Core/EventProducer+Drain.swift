import Synchronization

// # How delivery is serialized without a lock on the hot path
//
// `wip` ("work in progress") counts work submitted and not yet accounted for. The thread that
// moves it from 0 holds the *delivery rights*: it alone delivers events, registers observers and
// purges disposed ones, until it brings `wip` back to 0 (the queue-drain pattern of RxJava's
// serializers).
//
// - Uncontended `next`: compare-exchange 0 → 1 succeeds, deliver at once, subtract 1. If the result
//   is 0, done: one compare-exchange and one subtraction, no lock, no allocation.
// - Contended or reentrant `next`: push the work into `pending` (a short lock), then add 1. If the
//   old value was 0, the holder has just left: this thread takes the rights and drains.
// - The holder, before leaving, subtracts what it has accounted for. A non-zero result means new
//   work was pushed (pushes happen before their add): it swaps the whole pending queue out in one
//   lock and performs it, then subtracts again (`drainQueued`).
//
// Every work item is pushed before its add and the holder drains after reading the count, so
// nothing is lost; one holder at a time delivers, so observers are never called concurrently and
// all see one order; a thread's `next` returns only once its event is queued or delivered, and a
// later `next` of that thread can take the fast path only when `wip` is 0, i.e. when everything
// queued before has been delivered: per-thread order holds. A reentrant `next` finds `wip` > 0 and
// queues: no recursion, no deadlock (the holder finishes the current event first).
//
// Memory orderings: every read-modify-write of `wip` is acquiring-and-releasing, so the
// drainer-owned state (observers, replay, batch) written by one holder happens-before the next
// holder's use of it. `pending` is a `LockedState` (a pthread mutex), made by the first thread
// that needs it (`pendingStorage`, a `LazyObjectSlot`: its acquiring load and
// acquiring-and-releasing store publish the initialized lock to every later user; two threads that
// race to make it agree on the one stored first).
//
// Registration goes through the same serialization (`Work.register`), so the replay and the live
// events meet exactly: no duplicate, no gap.
//
// `send(contentsOf:)` awaits its element's delivery without a waiting thread: when contended it
// queues the event and, right behind it, `Work.resume` with its task's `DeliveryWaiter`; the holder
// performs work in queue order, so it resumes the task once the event has reached every observer.
// A cancelled task resumes itself at once through the same waiter; the queued `.resume` then does
// nothing.
//
// # Bounded work for others (the hand-off)
//
// A thread that keeps sending keeps `wip` above 0, so a holder that drained "until `wip` is 0"
// would deliver that thread's flood for as long as it lasts. Instead each call performs a bounded
// number of items queued by others, its *budget*, and then hands the rights to a worker (each
// queued item carries the thread that queued it; what the holder's own thread queued, reentrant
// sends from the observers it runs, is its own work and is performed without limit, so a
// single-threaded feedback loop is delivered before the outer call returns, as before):
// - `next`, `finish` and `send`: `drainHandOffLimit` (1,024) items;
// - `observe`: 0 (its own registration and replay only); `dispose()`: 0 (no event at all).
// When the budget runs out with work left, `handOff(missed:)` dispatches one worker to a global
// queue and returns. `wip` stays above 0, so the rights pass to the worker with the rest of the
// batch and the count; it drains with no budget, in order, and nobody waits for it. Every guarantee
// above holds as before (one holder at a time, one order, each thread's order, reentrant sends
// queued, constant stack); what changes is that a call may return before the work it found queued
// is delivered, as a call that finds the rights taken always did.
//
// # Disposal never waits
//
// `dispose()` sets the observation's flag first (the drainer checks it before each delivery, so no
// new delivery to that observer starts once it is set) and decrements `liveObservers`
// (`observerCount` is exact when it returns). Then it asks for a purge, which removes the
// disposed observers and releases their closures:
// - the producer is idle (compare-exchange 0 → 1 succeeds): this thread purges at once and gives
//   the rights back; what others queued meanwhile goes to a worker (budget 0, see above);
// - another thread, or this one from inside a delivery, holds the rights: it raises
//   `purgeRequested` and queues a `.purge` (counted in `wip` like any work, so the holder performs
//   it before it leaves) and returns. The holder checks `purgeRequested` between work items, so the
//   closure is released once the delivery running now returns, not behind the whole backlog.
// No path waits, spins or yields for another thread: a delivery to the observer already running on
// another thread runs to its end (RxSwift, ReactiveSwift and Combine behave the same). Operators
// that need "not running any more" get it from their own state, checked under their own
// serialization. `Verification/Drain.pml` models this protocol, the hand-off included, and checks it
// with spin.

extension EventProducer {
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

  /// The one way to take the delivery rights: performs `work` at once when the producer is idle
  /// (compare-exchange `wip` 0 → 1), then gives the rights back, performing at most `budget` items
  /// queued by others meanwhile; else queues it behind the holder (``submitContended(_:budget:)``).
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
    // acquiringAndReleasing: acquires the drainer-owned state the previous holder released.
    guard wip.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else {
      return false
    }
    tookRights()
    perform(work)
    finishDraining(accounted: 1, budget: budget)
    return true
  }

  /// Queues `work` behind the current holder of the delivery rights, or takes them if it has left;
  /// then performs at most `budget` queued items (see "Bounded work for others"). A purge whose
  /// thread takes the rights so is done at once (the producer was idle), before anything queued.
  @inlinable
  func submitContended(_ work: Work, budget: Int = drainHandOffLimit) {
    let sender = currentThreadID()
    pending.withLock { $0.queue.push(SentWork(work, sender: sender)) }
    if wip.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
      tookRights()
      if case .purge = work { purgeDraining() }  // the queued `.purge` then finds nothing to do
      drainQueued(missed: 1, budget: budget)
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
  /// queued meanwhile, at most `budget` items, then hands the rest to a worker.
  @inlinable
  func finishDraining(accounted: Int, budget: Int = drainHandOffLimit) {
    gaveRights()
    let missed = wip.wrappingSubtract(accounted, ordering: .acquiringAndReleasing).newValue
    if missed != 0 {
      tookRights()
      drainQueued(missed: missed, budget: budget)
    }
  }

  /// The drain loop of the thread holding the delivery rights, `missed` being the count it read
  /// last: performs the batch (the work queued when it was last swapped out), swapping the pending
  /// queue in whenever the batch is empty, and subtracts what it has accounted for, until the count
  /// is back to 0. Its own work (what this thread queued, reentrant sends from the observers it
  /// runs) it performs without limit; after `budget` items queued by other threads it stops and
  /// hands the rights, the rest of the batch and the count to a worker (``handOff(missed:)``).
  // Inlinable so that delivery specializes for the event type; never inlined, so that the fast
  // paths of `next` stay as short as they were.
  @inlinable @inline(never)
  func drainQueued(missed: Int, budget: Int) {
    var missed = missed
    var budget = budget
    let thread = currentThreadID()
    while true {
      // The batch is empty here except in a worker that took over in the middle of one. Every item
      // counted in `missed` was pushed before it was counted, so it is in the batch (left over) or
      // in `pending` (swapped in now): both are performed before `missed` is subtracted.
      if batch.isEmpty { pending.withLock { swap(&$0.queue, &batch) } }
      while !batch.isEmpty {
        if budget == 0 && batch.first.unsafelyUnwrapped.sender != thread {
          handOff(missed: missed)
          return
        }
        let item = batch.pop().unsafelyUnwrapped
        if item.sender != thread { budget -= 1 }
        perform(item.work)
        // relaxed: a hint only; purgeDraining's exchange is what orders the purge after the flags.
        if purgeRequested.load(ordering: .relaxed) { purgeDraining() }
      }
      gaveRights()
      missed = wip.wrappingSubtract(missed, ordering: .acquiringAndReleasing).newValue
      if missed == 0 { return }
      tookRights()
    }
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
    // Budget 0: `dispose()` delivers no event; what others queued goes to a worker.
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
