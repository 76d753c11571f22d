import Synchronization

/// One observation of ``Throttle``, ``Debounce``, ``TimedCollect`` or ``Delay``: a
/// ``TimedStateMachine`` in front of a ``ScheduledDelivery``. Returned as the observation's disposable.
///
/// The machine decides under this sink's lock; a hand-over to the delivery is queued inside that
/// critical section (in decision order, see `ScheduledDelivery.enqueue`), and everything else
/// (timers, drains, releases) is performed after the lock is released, where the scheduler and the
/// delivery may run user code.
///
/// **The latest slot** (machines with `usesLatestSlot`, ``Throttle``): while a window is open, an
/// event only replaces the pending one (or is dropped), so it takes no lock. The machine hands the
/// pending event to `slot` and the atomic `slotUse` word says what an event may do without the lock
/// (``LatestSlotUse``); the sender, which the upstream never runs concurrently with itself (guarantee
/// 1: a producer never calls its observers concurrently), owns the slot between its exchanges
/// `keepLatest → sending → keepLatest`. Every lock holder first takes the slot back into the machine
/// (`takeSlotLocked`) and hands it out again after deciding (`openSlotLocked`). A timer that comes
/// while the sender holds the slot marks the word `interrupted` and leaves its window's end to the
/// sender, which finishes it under the lock (`finishSend`): nobody waits for anybody.
/// - Note: thread-safe.
@usableFromInline
final class TimedSink<Machine: TimedStateMachine, S: Scheduler>: DisposableType {
  @usableFromInline typealias Event = Machine.Event
  @usableFromInline typealias Input = Machine.Input
  @usableFromInline typealias HandOver = ScheduledDelivery<Event, S>.Machine.ReceiveAction
  /// What a window's end hands over: the machine's action, the event's and the end's hand-overs.
  @usableFromInline typealias FireHandOver = (action: TimedFireAction<Event>, event: HandOver?, end: HandOver?)

  @usableFromInline let delivery: ScheduledDelivery<Event, S>
  @usableFromInline let seconds: Double
  /// The scheduler's clock, when the machine reads it (``TimedStateMachine/readsClock``) and the
  /// scheduler tells it; else `nil`.
  @usableFromInline let clock: (any ClockedScheduler)?
  @usableFromInline let state: LockedState<TimedSinkState<Machine>>
  /// What an event may do without the lock: a ``LatestSlotUse`` raw value, or `sending` (the sender
  /// holds `slot`) or `interrupted` (it does, and a lock holder came meanwhile).
  @usableFromInline let slotUse = Atomic<UInt8>(LatestSlotUse.none.rawValue)
  /// The pending event while `slotUse` is `keepLatest`, `sending` or `interrupted`. Owned by the
  /// sender from its acquiring exchange to `sending` to its releasing exchange back, else by the
  /// lock holder that took it back (acquiring): never touched by two threads at once.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var slot: Input?

  @inlinable
  init(delivery: ScheduledDelivery<Event, S>, seconds: Double, machine: Machine) {
    self.delivery = delivery
    self.seconds = seconds
    self.clock = Machine.readsClock ? delivery.scheduler as? any ClockedScheduler : nil
    self.state = LockedState(TimedSinkState(machine: machine))
  }

  /// Observes `upstream` for `observer` through a new sink running `machine`. `registered` is
  /// asked of the upstream only when `observer` has one; the end always (the sink flushes at the
  /// end).
  @inlinable
  static func observe<Upstream: EventProducerType>(
    _ upstream: Upstream,
    with observer: EventObserver<Event>,
    on scheduler: S,
    seconds: Double,
    machine: Machine
  ) -> any DisposableType where Upstream.Event == Input {
    let delivery = ScheduledDelivery(scheduler: scheduler, observer: observer)
    let sink = TimedSink(delivery: delivery, seconds: seconds, machine: machine)
    let observation = upstream.observe(
      with: EventObserver(
        { sink.receive($0) },
        finished: { sink.upstreamEnded() },
        registered: observer.registered == nil ? nil : { sink.registrationEnded() }
      )
    )
    delivery.attach(observation)
    // After the upstream's registration: an event it replayed has armed a newer timer, which makes
    // this one stale (the machine hands its handle back to be cancelled).
    if let generation = machine.timerAtStart { sink.scheduleTimer(generation) }
    return sink
  }

  @inlinable
  var isDisposed: Bool { delivery.isDisposed }

  /// An upstream event (any thread; the upstream never calls it concurrently with itself, nor with
  /// `registrationEnded` or `upstreamEnded`).
  @inlinable
  func receive(_ input: Input) {
    if Machine.usesLatestSlot {
      // Relaxed: dropping reads no data; the exchange below acquires what keeping the latest reads.
      let word = slotUse.load(ordering: .relaxed)
      if word == LatestSlotUse.dropEvents.rawValue { return }
      if word == LatestSlotUse.keepLatest.rawValue,
        // Acquiring: pairs with the releasing store that handed the slot out (`openSlotLocked`).
        slotUse.compareExchange(expected: word, desired: TimedSinkSlot.sending, ordering: .acquiring).exchanged
      {
        let replaced = slot.take()
        slot = input
        // Releasing: publishes the slot to the lock holder that takes it back (its acquiring exchange).
        let handedBack = slotUse.compareExchange(
          expected: TimedSinkSlot.sending,
          desired: word,
          ordering: .releasing
        ).exchanged
        if !handedBack { finishSend() }
        _ = replaced  // released here, outside any lock
        return
      }
    }
    // Read before the lock, to keep the critical section short.
    let now = Machine.readsClock ? clock?.now : nil
    let (action, handOver) = state.withLock { locked -> (TimedReceiveAction<Event>, HandOver?) in
      takeSlotLocked(&locked.machine)
      defer { openSlotLocked(&locked.machine) }
      let action = if let now { locked.machine.receive(input, now: now) } else { locked.machine.receive(input) }
      if let deliver = action.deliver { return (action, delivery.enqueue(deliver)) }
      return (action, action.registeredDue ? delivery.enqueueRegistrationEnd() : nil)
    }
    action.cancel?.dispose()
    if let handOver { delivery.perform(handOver, onScheduler: false) }
    if let generation = action.schedule { scheduleTimer(generation) }
  }

  @usableFromInline
  func registrationEnded() {
    let handOver = state.withLock { locked in
      takeSlotLocked(&locked.machine)
      defer { openSlotLocked(&locked.machine) }
      return locked.machine.registrationEnded() ? delivery.enqueueRegistrationEnd() : nil
    }
    if let handOver { delivery.perform(handOver, onScheduler: false) }
  }

  @usableFromInline
  func scheduleTimer(_ generation: UInt64, after delay: Double? = nil) {
    // The timer holds this sink until it fires or is cancelled (by the machine, the end or dispose):
    // the machine keeps every handle, so that dispose() breaks that cycle (scheduler → action →
    // sink → delivery → scheduler) at once, and releases what the observation captured.
    let handle = delivery.scheduler.schedule(after: delay ?? seconds) { [self] in self.timerFired(generation) }
    // The handle is not the pending event: the slot stays where it is.
    let cancel = state.withLock { $0.machine.timerScheduled(handle, generation: generation) }
    cancel?.dispose()
  }

  /// Runs on the scheduler.
  @usableFromInline
  func timerFired(_ generation: UInt64) {
    let now = Machine.readsClock ? clock?.now : nil
    let fire = state.withLock { locked -> FireHandOver? in
      guard takeSlotLocked(&locked.machine) else {
        // The sender holds the slot: it decides this end once it hands the slot back (finishSend).
        // Generations only grow, and an older window's end does nothing: the newest is kept.
        locked.deferredFire = max(locked.deferredFire ?? 0, generation)
        return nil
      }
      defer { openSlotLocked(&locked.machine) }
      return fireLocked(&locked.machine, generation, now: now)
    }
    if let fire { perform(fire, onScheduler: true) }
  }

  /// The sender found `interrupted` when handing the slot back: a lock holder came meanwhile. The
  /// slot goes back into the machine (or is released, when disposed), then a window's end that came
  /// meanwhile is decided here, off the scheduler.
  @usableFromInline
  func finishSend() {
    let (fire, dropped) = state.withLock { locked -> (FireHandOver?, Input?) in
      // Relaxed: under the lock, and no other thread leaves `interrupted`; the next hand-out releases.
      slotUse.store(LatestSlotUse.none.rawValue, ordering: .relaxed)
      let dropped = locked.machine.restoreLatestFromSlot(slot.take())
      defer { openSlotLocked(&locked.machine) }
      guard let generation = locked.deferredFire else { return (nil, dropped) }
      locked.deferredFire = nil
      return (fireLocked(&locked.machine, generation, now: Machine.readsClock ? clock?.now : nil), dropped)
    }
    if let fire { perform(fire, onScheduler: false) }
    _ = dropped  // released here, outside the lock
  }

  /// The upstream ended: the event due now is handed to the delivery, then the end if it is due
  /// now, in one critical section (no event can come between them); the timer is cancelled.
  @usableFromInline
  func upstreamEnded() {
    let (cancel, flush, end) = state.withLock { locked -> ((any DisposableType)?, HandOver?, HandOver?) in
      takeSlotLocked(&locked.machine)
      defer { openSlotLocked(&locked.machine) }
      let action = locked.machine.ended()
      let flush = action.flush.map { delivery.enqueue($0.event, endsRegistration: $0.endsRegistration) }
      return (action.cancel, flush, action.endsNow ? delivery.enqueueEnd() : nil)
    }
    cancel?.dispose()
    if let flush { delivery.perform(flush, onScheduler: false) }
    if let end { delivery.perform(end, onScheduler: false) }
  }

  @usableFromInline
  func dispose() {
    // The delivery first: from now on no new delivery starts; it also ends the upstream observation.
    delivery.dispose()
    let (timer, dropped) = state.withLock { locked in
      // When the sender holds the slot, it releases the slot's event itself (finishSend).
      takeSlotLocked(&locked.machine)
      return locked.machine.disposed()
    }
    timer?.dispose()
    _ = dropped  // released here, outside the lock
  }

  /// The machine's decision for the end of window `generation` (at the scheduler's time `now`, when
  /// the machine reads the clock), its hand-overs queued in order.
  @inlinable
  func fireLocked(_ machine: inout Machine, _ generation: UInt64, now: Double?) -> FireHandOver {
    let action =
      if let now { machine.fire(generation: generation, now: now) } else { machine.fire(generation: generation) }
    let handOver = action.deliver.map { delivery.enqueue($0.event, endsRegistration: $0.endsRegistration) }
    return (action, handOver, action.ends ? delivery.enqueueEnd() : nil)
  }

  /// Performs a window's end (after the lock): its next timer, its event, then the end.
  @usableFromInline
  func perform(_ fire: FireHandOver, onScheduler: Bool) {
    if let generation = fire.action.schedule { scheduleTimer(generation, after: fire.action.delay) }
    if let handOver = fire.event { delivery.perform(handOver, onScheduler: onScheduler) }
    if let end = fire.end { delivery.perform(end, onScheduler: onScheduler) }
  }

  /// Under the lock, before any decision: takes the slot back into the machine and closes the path
  /// without lock. Returns false when the sender holds the slot (the word is then `interrupted`,
  /// and the sender gives the slot back under the lock, `finishSend`).
  @inlinable
  @discardableResult
  func takeSlotLocked(_ machine: inout Machine) -> Bool {
    guard Machine.usesLatestSlot else { return true }
    var word = slotUse.load(ordering: .relaxed)
    while true {  // each retry follows a step of the sender's: it never waits for the sender
      switch word {
      case LatestSlotUse.none.rawValue: return true
      case TimedSinkSlot.interrupted: return false
      case TimedSinkSlot.sending:
        // Relaxed: nothing passes through the word here; the sender takes the lock to finish.
        let (exchanged, now) = slotUse.compareExchange(
          expected: word,
          desired: TimedSinkSlot.interrupted,
          ordering: .relaxed
        )
        if exchanged { return false }
        word = now
      default:
        // Acquiring: pairs with the sender's releasing hand-back, so its slot write is visible.
        let (exchanged, now) = slotUse.compareExchange(
          expected: word,
          desired: LatestSlotUse.none.rawValue,
          ordering: .acquiring
        )
        if exchanged {
          if let stale = machine.restoreLatestFromSlot(slot.take()) {
            _ = stale
            preconditionFailure("Internal inconsistency")  // the slot is out only while a window is open
          }
          return true
        }
        word = now
      }
    }
  }

  /// Under the lock, after a decision, with the slot taken back: hands the pending event out to the
  /// slot when the machine's state lets events skip the lock.
  @inlinable
  func openSlotLocked(_ machine: inout Machine) {
    guard Machine.usesLatestSlot, slotUse.load(ordering: .relaxed) == LatestSlotUse.none.rawValue else { return }
    let use = machine.latestSlotUse
    guard use != .none else { return }
    if use == .keepLatest { slot = machine.takeLatestForSlot() }
    // Releasing: the sender's acquiring exchange then sees the slot.
    slotUse.store(use.rawValue, ordering: .releasing)
  }
}

/// What a ``TimedSink`` keeps under its lock: the machine, and the end of a window that came while
/// the sender held the slot (decided by the sender when it gives the slot back).
@usableFromInline
struct TimedSinkState<Machine> {
  @usableFromInline var machine: Machine
  @usableFromInline var deferredFire: UInt64?

  @inlinable
  init(machine: Machine) {
    self.machine = machine
  }
}

/// The values of ``TimedSink``'s `window` word beyond the ``LatestSlotUse`` ones.
@usableFromInline
enum TimedSinkSlot {
  /// The sender holds the slot.
  @inlinable static var sending: UInt8 { 3 }
  /// The sender holds the slot, and a lock holder came meanwhile: the sender finishes under the lock.
  @inlinable static var interrupted: UInt8 { 4 }
}
