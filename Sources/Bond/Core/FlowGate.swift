import Synchronization

// # How pressure travels upstream
//
// A `FlowGate` counts pressure: it is *under pressure* while its count is above 0. Each gate lists
// its *dependents*, the gates it puts under pressure in turn; a gate forwards only its own
// transitions (0 → 1 raises every dependent once, 1 → 0 releases them once), so a dependent's count
// is the number of its sources under pressure.
//
// - A `.backpressure` stage owns a gate (a partition: one for all its lanes) that it raises when
//   `bufferLimit` events wait and releases once it has delivered down to `bufferLimit / 2`, or when
//   it is disposed, ends or is deallocated.
// - The stage observes its upstream with its gate in the `EventObserver` (`pressure`); every
//   operator passes the observer's `pressure` on to the observations it makes of its own sources
//   (`withEvent` does it for the synchronous ones), so the gate reaches every producer that feeds
//   the stage without crossing another stage.
// - Each producer that an observation with a gate reaches makes that gate list the producer's own
//   gate as a dependent (at registration; the link goes when the observation is purged or ended).
//   The producer is writable while its own gate's count is 0 (or once it is finished).
// - `share` observes its upstream with the shared producer's own gate: pressure on the shared
//   producer reaches the upstream's.
// - A stage whose downstream (its observer's `pressure`) is under pressure stops draining after the
//   event in hand and asks that gate to wake it on release (`wakeOnRelease`): it fills in turn and
//   raises its own gate, so pressure crosses stages one buffer at a time.
//
// Transitions are decided under a gate's lock and carried out after it (dependents, waiting
// senders, stage wake-ups, the `writability` producer), so no lock is held while another gate's
// lock is taken or user code runs. Carried out in another order than decided (a release
// overtaking its raise), a count goes below 0 for a moment and comes back: the final counts are
// the same, and a gate is under pressure only while its count is above 0.

/// A count of pressure, its dependents, and what waits for its release (see the notes above).
/// - Note: thread-safe.
@usableFromInline
final class FlowGate: Sendable {
  @usableFromInline
  struct State: Sendable {
    /// Sources under pressure (a stage: 1 while under pressure). Above 0: under pressure.
    @usableFromInline var count = 0
    /// The gates this one puts under pressure (the same gate once per link).
    @usableFromInline var dependents: [FlowGate] = []
    /// Senders waiting for the release (`send(_:)`, `send(contentsOf:)`).
    @usableFromInline var waiters: [DeliveryWaiter] = []
    /// Stages paused by this gate's pressure, each woken once on release.
    @usableFromInline var wakers: [UncheckedSendable<() -> Void>] = []
    /// A finished producer is writable whatever its count, and nobody waits for it any more.
    @usableFromInline var isFinished = false
    @inlinable init() {}
  }

  @usableFromInline let state = LockedState(State())
  /// Mirrors `state.count > 0 && !state.isFinished`, for reads that take no lock.
  @usableFromInline let pressured = Atomic<Bool>(false)
  /// The producer's `writability` changes, created with the first `writability` (a replay of 1
  /// token: an observer gets the current value at once).
  @usableFromInline let changes = AtomicLazyReference<EventProducer<Void>>()

  @inlinable
  init() {}

  /// Whether the gate is under pressure now.
  @inlinable
  var isPressured: Bool {
    // acquiring: pairs with the releasing store of the transition that set it.
    pressured.load(ordering: .acquiring)
  }

  /// What a transition carries out after the lock: taken out of the state under it.
  @usableFromInline
  struct Effects {
    @usableFromInline var dependents: [FlowGate] = []
    @usableFromInline var raise = true
    @usableFromInline var waiters: [DeliveryWaiter] = []
    @usableFromInline var wakers: [UncheckedSendable<() -> Void>] = []
    @usableFromInline var changed = false
    @inlinable init() {}

    /// Takes every waiting sender and paused stage out of `state`, to resume after the lock.
    @inlinable
    mutating func letGo(_ state: inout State) {
      swap(&waiters, &state.waiters)
      swap(&wakers, &state.wakers)
    }
  }

  /// Adds one source of pressure; at the first, puts every dependent under pressure.
  @usableFromInline
  func raise() {
    let effects = state.withLock { state -> Effects in
      state.count += 1
      var effects = Effects()
      guard state.count == 1 else { return effects }
      effects.dependents = state.dependents
      effects.changed = !state.isFinished
      publish(state)
      return effects
    }
    carryOut(effects)
  }

  /// Removes one source of pressure; at the last, releases every dependent, resumes the waiting
  /// senders and wakes the paused stages.
  @usableFromInline
  func release() {
    let effects = state.withLock { state -> Effects in
      state.count -= 1
      var effects = Effects()
      guard state.count == 0 else { return effects }
      effects.raise = false
      effects.dependents = state.dependents
      effects.changed = !state.isFinished
      effects.letGo(&state)
      publish(state)
      return effects
    }
    carryOut(effects)
  }

  /// Lists `dependent`, and puts it under pressure at once if this gate is.
  @usableFromInline
  func addDependent(_ dependent: FlowGate) {
    // A gate never holds itself back (a `share` fed back into itself through `flatMap`).
    guard dependent !== self else { return }
    let raise = state.withLock { state -> Bool in
      state.dependents.append(dependent)
      return state.count > 0
    }
    if raise { dependent.raise() }
  }

  /// Forgets one link to `dependent`, releasing it if this gate was under pressure.
  @usableFromInline
  func removeDependent(_ dependent: FlowGate) {
    let release = state.withLock { state -> Bool in
      guard let index = state.dependents.firstIndex(where: { $0 === dependent }) else { return false }
      state.dependents.remove(at: index)
      return state.count > 0
    }
    if release { dependent.release() }
  }

  /// Keeps `waiter` until the release and returns `true`; returns `false` (keeping nothing) when
  /// the gate is not under pressure, so the sender goes on.
  @usableFromInline
  func waitForRelease(_ waiter: DeliveryWaiter) -> Bool {
    state.withLock { state in
      guard state.count > 0 && !state.isFinished else { return false }
      state.waiters.append(waiter)
      return true
    }
  }

  /// Forgets a waiter whose task was cancelled (it resumed itself), so that waiters cancelled
  /// while the pressure lasts do not pile up.
  @usableFromInline
  func forget(_ waiter: DeliveryWaiter) {
    state.withLock { state in state.waiters.removeAll { $0 === waiter } }
  }

  /// Keeps `wake` for the release and returns `true`; returns `false` (keeping nothing) when the
  /// gate is not under pressure any more, so the stage goes on draining.
  @usableFromInline
  func wakeOnRelease(_ wake: @escaping () -> Void) -> Bool {
    state.withLock { state in
      guard state.count > 0 && !state.isFinished else { return false }
      state.wakers.append(UncheckedSendable(wake))
      return true
    }
  }

  /// The producer finished: writable for good; its waiting senders go on (and find it finished).
  @usableFromInline
  func finish() {
    let effects = state.withLock { state -> Effects in
      var effects = Effects()
      guard !state.isFinished else { return effects }
      state.isFinished = true
      effects.changed = state.count > 0
      effects.letGo(&state)
      publish(state)
      return effects
    }
    carryOut(effects)
  }

  /// Whether the producer may be sent to without waiting.
  @inlinable
  var isWritable: Bool { !isPressured }

  @inlinable
  func publish(_ state: State) {
    // releasing: a reader that sees the new value sees the state that led to it.
    pressured.store(state.count > 0 && !state.isFinished, ordering: .releasing)
  }

  /// Carries out a transition, outside every lock.
  @usableFromInline
  func carryOut(_ effects: Effects) {
    for dependent in effects.dependents {
      if effects.raise { dependent.raise() } else { dependent.release() }
    }
    for waiter in effects.waiters { waiter.delivered() }
    for wake in effects.wakers { wake.value() }
    // Each observer of `writability` reads the value when the token reaches it, so whatever the
    // order in which two transitions send their tokens, the last value delivered is the current one.
    if effects.changed, let changes = changes.load() { changes.next(()) }
  }

  /// The `writability` changes of the producer this gate belongs to.
  @usableFromInline
  var writabilityChanges: EventProducer<Void> {
    if let existing = changes.load() { return existing }
    let created = EventProducer<Void>(replayLength: 1)
    created.next(())
    return changes.storeIfNil(created)
  }
}

/// A producer's ``FlowGate``, stored once when first needed (see ``LazyObjectSlot``).
@usableFromInline
typealias FlowGateSlot = LazyObjectSlot<FlowGate>

/// An object stored once when first needed: `AtomicLazyReference`'s role, on an `Atomic` whose
/// operations are specialized in the caller's module. A producer's ``FlowGate`` and its pending
/// lock's storage are kept in one.
///
/// Why not `AtomicLazyReference`: its `load()` is generic and not inlinable, and it looks up
/// generic metadata in the runtime's cache at every call (~575 instructions); an async `send(_:)` reads the
/// gate before every event, and a contended or reentrant send reads the pending lock.
/// - Note: thread-safe.
@usableFromInline
struct LazyObjectSlot<Object: AnyObject>: ~Copyable, @unchecked Sendable {
  // @unchecked: the object is published by the atomic exchange; what it holds is its own business.
  /// The object, retained once by the slot (released at its end), or `nil` before the first store.
  @usableFromInline let storage = Atomic<Unmanaged<Object>?>(nil)

  @inlinable
  init() {}

  /// The object, if one was stored.
  @inlinable
  func load() -> Object? {
    // acquiring: pairs with storeIfNil's exchange; the object is seen fully initialized.
    storage.load(ordering: .acquiring)?.takeUnretainedValue()
  }

  /// The object, if one was stored, unretained: for a caller that keeps the slot's owner alive
  /// while it uses it (the slot holds the object until the owner's end).
  @inlinable
  func loadUnmanaged() -> Unmanaged<Object>? {
    // acquiring: pairs with storeIfNil's exchange; the object is seen fully initialized.
    storage.load(ordering: .acquiring)
  }

  /// Stores `object` if none is stored yet; returns the stored one (`object`, or the one that
  /// another thread stored first).
  @inlinable
  func storeIfNil(_ object: Object) -> Object {
    let retained = Unmanaged.passRetained(object)
    // acquiringAndReleasing: publishes `object` to later loads, or acquires the one stored first.
    let (exchanged, original) = storage.compareExchange(
      expected: nil,
      desired: retained,
      ordering: .acquiringAndReleasing
    )
    if exchanged { return object }
    retained.release()
    return original.unsafelyUnwrapped.takeUnretainedValue()
  }

  deinit {
    // acquiring: the last owner sees the store it releases (the producer is being deallocated).
    storage.load(ordering: .acquiring)?.release()
  }
}

extension EventProducer {
  /// This producer's gate, created with the first call (a finished producer's at once finished).
  @usableFromInline
  var gate: FlowGate {
    if let existing = flowGate.load() { return existing }
    let gate = flowGate.storeIfNil(FlowGate())
    // A finish() that read no gate before this one was stored is seen here: with the fence in
    // finish(), at least one of the two sees the other's store (the store-buffer pattern).
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    if isFinished { gate.finish() }
    return gate
  }
}
