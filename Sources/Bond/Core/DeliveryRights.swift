import Dispatch
import Synchronization

// # The delivery rights: the one serializer of the engine
//
// Every place that delivers in one order, one call at a time (`EventProducer`, and through it
// `Observable`, the inbox of the multi-source operators, `send(contentsOf:)`, `flush()`; and the
// hand-off of `ObservableArray`) takes its *delivery rights* here, queues when it cannot, and drains
// with this one loop.
//
// `count` ("work in progress") counts work submitted and not yet accounted for. The thread that
// moves it from 0 holds the rights: it alone performs the queued work, until it brings the count
// back to 0 (the queue-drain pattern of RxJava's serializers).
//
// - Uncontended: compare-exchange 0 → 1 (``takeIfIdle()``), perform at once, subtract 1
//   (``giveBack(_:)``). If the result is 0, done: one compare-exchange and one subtraction, no lock.
// - Contended or reentrant: push the work into the owner's pending queue (a short lock), then add
//   (``counted(_:)``). If the old value was 0, the holder has just left: this thread takes the
//   rights and drains.
// - The holder, before leaving, subtracts what it has accounted for. A non-zero result means new
//   work was pushed (pushes happen before their add): it takes the whole pending queue in one lock
//   (``RightsDrainer/refillDraining()``) and performs it, then subtracts again (``drain(_:missed:budget:)``).
//
// Every work item is pushed before its add and the holder drains after reading the count, so
// nothing is lost; one holder at a time, so one order and never two deliveries at once; a thread's
// later send takes the fast path only at count 0, when everything it queued before was performed,
// so each thread's order holds; a reentrant send finds the count above 0 and queues.
//
// # Bounded work for others: the rights are left vacant
//
// A thread that keeps sending keeps the count above 0, so a holder that drained "until 0" would
// deliver that thread's flood for as long as it lasts. Instead each call performs at most `budget`
// items queued by other threads (each item carries its sender; what the holder's own thread
// queued, reentrant sends from the observers it runs, is its own work and is performed without
// limit, so a single-threaded feedback loop is delivered before the outer call returns), then
// *leaves the rights vacant* (``leaveVacant(_:)``): it sets ``vacant`` on the count and returns,
// the rest of its batch in place. The next thread that counts work (a sender, an `observe`, a
// `flush()`) or the one worker the leaving holder dispatched, whichever comes first, claims them
// (one atomic and-not: exactly one caller sees the flag) and drains on, in order, with a budget of
// its own. While vacant the count is above 0: nobody takes the fast path, every call queues behind
// the vacancy and its claimant, so the order is kept. What changes for a caller is only that it may
// return before the work it found queued is delivered, as a call that finds the rights taken always
// did (`flush()` waits for it).
//
// So two threads that flood one producer keep one pushing while the other drains, as before the
// budget existed, instead of both pushing into one lock while a third thread drains (S10 was 2-4×
// slower so on a 2-core machine: perf/README.md, "S10: contended sends"). The worker is there for
// when nobody comes: one worker at a time is dispatched and not yet started
// (``DeliveryRights/workerDispatched``); a vacancy left before it starts is claimed by it. It is
// dispatched with the drainer as its own type: as an existential it would run the owner's
// unspecialized (generic) drain, many times slower, for everything it drains (a pipeline then
// accepts faster than it delivers and its memory grows: it is what made an earlier version of this
// vacancy look like it halved the ingest example's rate).
//
// The budgets: 64 items of others for a call, so that two flooding threads take short turns (S10
// is steadiest and fastest so; 1,024 left it 0.9-1.3× the engine before bounded work), and 1,024
// for the worker, which holds the rights only when no sender was there to claim them (each of its
// turns costs a dispatch). `ObservableArray`'s senders count under its lock
// (``takeOrCountLocked()``) and never claim a vacancy: its worker does.
//
// # Memory orderings
//
// Every read-modify-write of `count` is acquiring-and-releasing, or sequentially consistent on the
// vacancy's path: the owner's drainer-owned state (observers, replay, batch) written by one holder
// happens-before the next holder's use of it, including through a vacancy (the leaving holder's
// `or`, the claimant's `and`). The vacancy's `or`, the `workerDispatched` exchange and store and
// the claim's `and` are sequentially consistent, so that a pending worker that clears the flag
// after a holder found it set also sees that holder's vacancy (see ``leaveVacant(_:)``).
// `Verification/Drain.pml` models this type (its fast path, its drain, its vacancy and claim, the
// worker) and checks it with spin.

/// How many work items queued by other threads a call performs before it leaves the rights vacant
/// (see "Bounded work for others").
@inlinable
var drainHandOffLimit: Int { 64 }

/// How many work items the worker that claims vacant rights performs before it leaves them vacant
/// again (see "Bounded work for others").
@inlinable
var workerDrainLimit: Int { 1_024 }

/// What a holder of the ``DeliveryRights`` drains: the owner's queue of ``SentWork``, as a batch
/// that only the holder touches, refilled from a pending queue under the owner's lock.
@usableFromInline
protocol RightsDrainer: AnyObject {
  /// Swaps the pending queue into the (empty) batch, when the batch is empty (the holder only).
  func refillDraining()
  /// The thread that queued the next item of the batch, `nil` when the batch is empty (the holder only).
  func nextSenderDraining() -> UInt?
  /// Pops the next item of the batch and performs it (the holder only).
  func performNextDraining()
  /// The owner's drain: `rights.drain(self, missed: missed, budget: budget)`, in a function of the
  /// owner's own (`@inlinable @inline(never)`), so that the owner's fast paths call it on `self` and
  /// never hold the address of its rights as a value of their own (which costs a register, and a
  /// spill, in a user's sending loop).
  func drainQueued(missed: Int, budget: Int)
  /// The worker that ``DeliveryRights/leaveVacant(_:)`` dispatched: `rights.drainAsWorker(self)`.
  func drainAsWorker()
}

/// The delivery rights of one serialized owner (see the notes above): who performs the queued work,
/// one thread at a time, lock-free when uncontended.
@usableFromInline
struct DeliveryRights: ~Copyable {
  /// Work counted and not yet accounted for by a holder, plus ``vacant`` while nobody holds the
  /// rights with work queued. 0: idle.
  @usableFromInline let count = Atomic<Int>(0)
  /// Whether a worker is dispatched and has not started yet: a holder that leaves the rights vacant
  /// meanwhile dispatches no other, since that worker starts after the vacancy and claims it.
  @usableFromInline let workerDispatched = Atomic<Bool>(false)
  #if DEBUG
  /// The thread that holds the rights, 0 when none (debug builds: see ``check()``).
  @usableFromInline let holder = Atomic<UInt>(0)
  #endif

  /// The flag of vacant rights on ``count``: above every count.
  @inlinable static var vacant: Int { 1 << 62 }

  @inlinable init() {}

  /// Whether no work is counted: everything submitted so far has been performed.
  /// acquiring: sees what those performances wrote (the holder's releasing subtraction).
  @inlinable var isIdle: Bool { count.load(ordering: .acquiring) == 0 }

  /// The work counted and not yet performed, without the vacancy flag (tests).
  @inlinable var queuedCount: Int { count.load(ordering: .acquiring) & ~Self.vacant }

  /// Takes the rights if idle (count 0 → 1, the caller's own item counted); `false` otherwise.
  @inlinable @inline(__always)
  func takeIfIdle() -> Bool {
    // acquiringAndReleasing: acquires the drainer-owned state the previous holder released.
    guard count.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else {
      return false
    }
    took()
    return true
  }

  /// Counts `items` the caller has just pushed into the pending queue. Returns `nil` when another
  /// thread holds the rights (it performs them); else the caller now holds them and must
  /// ``drain(_:missed:budget:)`` with the returned `missed`: `items` when the owner was idle, 0 when
  /// it claimed vacant rights (the count then holds work the batch may not have taken yet).
  @inlinable @inline(__always)
  func counted(_ items: Int) -> Int? {
    // acquiringAndReleasing: from 0, acquires as takeIfIdle; above 0, publishes the push (done
    // before, under the owner's lock) to the holder that reads this count.
    let old = count.wrappingAdd(items, ordering: .acquiringAndReleasing).oldValue
    if old == 0 {
      took()
      return items
    }
    if old & Self.vacant == 0 { return nil }
    return claimVacant() ? 0 : nil
  }

  /// ``takeIfIdle()`` or ``counted(_:)`` of one item, for an owner that counts every item under one
  /// lock, held by the caller (``ObservableArray``): returns `true` when the owner was idle (the
  /// caller holds the rights and performs its item itself, uncounted in the queue); else the item is
  /// counted and the caller must push it, in the same critical section. At 0 a plain store takes
  /// the rights: nothing else can change a count of 0 until the lock is released (no holder
  /// subtracts from it, no vacancy is set on it). Such a caller never claims vacant rights (the
  /// worker does: see ``leaveVacant(_:)``), so that its item is never both its own and queued.
  @inlinable @inline(__always)
  func takeOrCountLocked() -> Bool {
    // acquiring: acquires the drainer-owned state as the last holder released it.
    if count.load(ordering: .acquiring) == 0 {
      count.store(1, ordering: .relaxed)
      took()
      return true
    }
    // A holder runs and may subtract at any moment, even to 0: then this call takes the rights.
    // Above 0 the push needs no ordering of its own: the holder takes the queue under the owner's
    // lock, after it has read this count.
    guard count.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 else { return false }
    took()
    return true
  }

  /// Claims vacant rights: `true` for exactly one caller per vacancy, which then holds them.
  @inlinable @inline(never)
  func claimVacant() -> Bool {
    // sequentiallyConsistent: acquires the batch and the state the leaving holder released, and,
    // for the worker, is ordered after its store to `workerDispatched` (see `leaveVacant`).
    guard count.bitwiseAnd(~Self.vacant, ordering: .sequentiallyConsistent).oldValue & Self.vacant != 0 else {
      return false
    }
    took()
    return true
  }

  /// The worker that ``leaveVacant(_:)`` dispatched (``RightsDrainer/drainAsWorker()`` calls this):
  /// marks it started, so that a later vacancy dispatches a new one, then claims the rights if they
  /// are still vacant and drains with a budget of its own.
  @inlinable
  func drainAsWorker<Drainer: RightsDrainer>(_ drainer: Drainer) {
    // sequentiallyConsistent: the store, then the claim's and-not (see `leaveVacant`).
    workerDispatched.store(false, ordering: .sequentiallyConsistent)
    if claimVacant() { drainer.drainQueued(missed: 0, budget: workerDrainLimit) }
  }

  /// Gives the rights back after `accounted` items performed: the count left, 0 when idle. A
  /// non-zero result means work was queued meanwhile: the caller still holds the rights.
  @inlinable @inline(__always)
  func giveBack(_ accounted: Int) -> Int {
    gave()
    // acquiringAndReleasing: releases the drainer-owned state to the next holder; acquires the
    // pushes counted meanwhile.
    let missed = count.wrappingSubtract(accounted, ordering: .acquiringAndReleasing).newValue
    if missed != 0 { took() }
    return missed
  }

  /// The drain loop of the holder, `missed` being the count it read last: performs the batch,
  /// refilling it from the pending queue when empty, and subtracts what it has accounted for, until
  /// the count is back to 0. Its own work (what this thread queued: reentrant sends) it performs
  /// without limit; before the `budget + 1`-th item queued by another thread it leaves the rights
  /// vacant, the rest of the batch in place (see "Bounded work for others").
  // Inlinable so that the owner's work specializes; inlined into the owner's `drainQueued`, which is
  // never inlined, so that the fast paths stay short.
  @inlinable @inline(__always)
  func drain<Drainer: RightsDrainer>(_ drainer: Drainer, missed: Int, budget: Int) {
    var missed = missed
    var budget = budget
    let thread = currentThreadID()
    while true {
      // Every item counted in `missed` was pushed before it was counted: it is in the batch (left
      // by a holder that stopped in the middle of one) or in the pending queue (taken now when the
      // batch is empty): both are performed before `missed` is subtracted. After a claim `missed`
      // is 0, and the next round reads the count and takes the rest.
      drainer.refillDraining()
      while let sender = drainer.nextSenderDraining() {
        if sender != thread {
          if budget == 0 {
            leaveVacant(drainer)
            return
          }
          budget -= 1
        }
        drainer.performNextDraining()
      }
      missed = giveBack(missed)
      if missed == 0 { return }
    }
  }

  /// Leaves the rights vacant with work queued (the count and the rest of the batch in place), and
  /// dispatches one worker to claim them if nobody else does first (see "Bounded work for others").
  @inlinable @inline(never)
  func leaveVacant<Drainer: RightsDrainer>(_ drainer: Drainer) {
    gave()
    // sequentiallyConsistent (here, and the worker's store to `workerDispatched` then its
    // `claimVacant()`): releases the batch and the drainer-owned state to the claimant; and either
    // this exchange finds the flag cleared and dispatches a worker, or the pending worker clears it
    // after this exchange and so claims after the vacancy was set. Either way a worker comes after it.
    count.bitwiseOr(Self.vacant, ordering: .sequentiallyConsistent)
    guard !workerDispatched.exchange(true, ordering: .sequentiallyConsistent) else { return }
    // The drainer as its own type, not as an existential: through an existential the worker would
    // run the owner's unspecialized (generic) drain, many times slower, for everything it drains.
    let worker = UncheckedSendable(drainer)
    DispatchQueue.global().async { worker.value.drainAsWorker() }
  }

  // A check where `@exclusivity(unchecked)` turns the compiler's off (RxSwift's
  // `SynchronizationTracker`): in debug builds, the thread that holds the rights is recorded when
  // it takes them and cleared when it gives them back, and every function that touches the
  // drainer-owned state checks it is that thread. Compiled out of release builds.

  /// Records this thread as the holder (debug builds).
  @inlinable @inline(__always)
  func took() {
    #if DEBUG
    // relaxed: `count`'s acquiring-and-releasing operations order the holders; this only records.
    let previous = holder.exchange(currentThreadID(), ordering: .relaxed)
    precondition(previous == 0, "Bond: two threads took the delivery rights at once")
    #endif
  }

  /// Clears the holder before the rights are given back (debug builds).
  @inlinable @inline(__always)
  func gave() {
    #if DEBUG
    check()
    holder.store(0, ordering: .relaxed)
    #endif
  }

  /// Stops if this thread does not hold the rights (debug builds).
  @inlinable @inline(__always)
  func check() {
    #if DEBUG
    precondition(
      holder.load(ordering: .relaxed) == currentThreadID(),
      "Bond: drainer-owned state touched by a thread that does not hold the delivery rights"
    )
    #endif
  }
}
