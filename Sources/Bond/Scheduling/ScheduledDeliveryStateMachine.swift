/// The decisions of a scheduled delivery: the buffer between the threads that send and the one
/// drain that delivers on the scheduler. Used by every operator that delivers on a scheduler
/// (``DeliverOn``, ``Batches``, ``Partition``, and the output side of ``Throttle``, ``Debounce``,
/// ``Delay`` and ``TimedCollect``), through ``ScheduledDelivery``, which performs the actions.
///
/// The end of the upstream is a ``State`` (``State/ending``), not an entry of `buffer` (a bounded
/// buffer never drops it): the drain hands it over once the buffer is empty, and the delivery is
/// then over (as disposed).
///
/// Invariants: a non-empty `buffer` (or a due `registered`, or a received end) implies a drain is
/// scheduled or running (``State/draining`` or ``State/ending``); only one drain runs at a time (the
/// state leaves ``State/idle`` with the sender that then schedules the drain, and goes back only
/// with that drain, when nothing is left). A drain step while ``State/idle`` cannot happen and
/// stops with `preconditionFailure`. An event, the registration's end or the end after the end or
/// after `dispose()` are ignored (`dispose()` races the senders).
///
/// One method per input: ``eventReceived(_:endsRegistration:)``, ``registrationEnded()``,
/// ``endReceived()``, a drain's step (``nextBatch(_:mayContinue:)`` unbounded,
/// ``nextEvent(mayContinue:chunk:chunkLimit:)`` bounded), ``attached()``, ``disposed()``; the
/// pressure's low watermark (``releasesPressure()``, ``releasesPressureAtEnd()``) is asked within
/// them.
///
/// Pure: it holds events and counts, never a closure, a lock or the upstream observation. The
/// observer's closures (`registered`, `finished`, the observer of events or of arrays) and the
/// upstream observation live beside it, in ``ScheduledDeliveryLockedState`` under the delivery's
/// lock; its actions say when the delivery hands one to the drain (``BatchStep/deliver(registeredAt:)``,
/// ``SingleStep/registered``) or lets them all go (``DrainExit/finish(_:)``, ``disposed()``), which
/// the delivery does in the same critical section, calling or releasing them after it. Not
/// thread-safe: the owner keeps it in a `LockedState`.
@usableFromInline
struct ScheduledDeliveryStateMachine<Event: Sendable> {
  // Field order: the fields only some deliveries or some steps touch first, then those every send
  // and every drain step touch, last: `LockedState` puts its mutex right after the state (here,
  // after the observer that ``ScheduledDeliveryLockedState`` keeps behind the machine), so the hot
  // fields and the lock share as few cache lines as possible (each one is moved between the
  // sender's core and the drain's on a hop).

  /// Bounded array mode (``Batches`` with a buffer limit): the most events per array; else 0.
  @usableFromInline var maxArrayCount = 0
  /// When the event at `sampleOffset` was sent (on the stage's clock).
  @usableFromInline var sampleStart = 0.0
  /// The timed event the drain has just taken: its offset in what it took, and when it was sent.
  @usableFromInline var takenSample: LatencySample?
  /// `.backpressure`: events the drain took out in its last chunk and is delivering now; they
  /// still count as waiting (a stage holds what it has in hand too).
  @usableFromInline var inHand = 0
  /// `.backpressure`: the buffer reached `bufferLimit` and has not yet drained down to
  /// `bufferLimit / 2` (the stage's gate is raised meanwhile).
  @usableFromInline var underPressure = false
  /// Where the delivery is: idle, draining, ending or over. One byte, where the two flags it
  /// replaces were: the hot fields stay where they were.
  @usableFromInline var state = State.idle
  @usableFromInline let overflowPolicy: DeliveryOverflowPolicy
  /// Where the observer's `registered` callback is: none (nobody asked, or handed over), awaited
  /// (the registration has not ended), or due after this many events of `buffer`.
  @usableFromInline var registration: Registration
  /// At most this many events wait in `buffer` (`Int.max`: unbounded).
  @usableFromInline let bufferLimit: Int
  /// Latency sampling: the offset in `buffer` of the event being timed, or -1 (none).
  @usableFromInline var sampleOffset = -1
  /// The storage of the last drained batch, kept so that a new drain allocates nothing.
  @usableFromInline var spare = WorkQueue<Event>()
  /// Events received and not yet taken by the drain, oldest first.
  @usableFromInline var buffer = WorkQueue<Event>()

  /// A delivery whose observer has a `registered` callback when `awaitsRegistered`.
  @inlinable
  init(awaitsRegistered: Bool, bufferLimit: Int, overflowPolicy: DeliveryOverflowPolicy) {
    self.registration = awaitsRegistered ? .awaited : .absent
    self.bufferLimit = bufferLimit
    self.overflowPolicy = overflowPolicy
  }

  /// Where the observer's `registered` callback is. The same nine bytes as the `Int?` it replaces
  /// (the count after which it is due), and no separate flag for "there is a callback".
  @usableFromInline
  enum Registration: Equatable {
    /// Nobody asked for it, or it was handed to the drain, or the delivery is over.
    case absent
    /// There is a callback; the upstream's registration has not ended yet.
    case awaited
    /// The registration ended: the callback is due after this many events of `buffer`.
    case due(after: Int)

    /// The offset in `buffer` at which the callback is due, or `Int.max` (not due).
    @inlinable
    var offset: Int {
      if case .due(let after) = self { return after }
      return .max
    }

    /// Whether the callback is there to be handed over (awaited, or due).
    @inlinable
    var isPending: Bool {
      if case .absent = self { return false }
      return true
    }

    /// `count` events were taken out of the front of `buffer` (delivered, or the oldest dropped):
    /// a due callback is due that many events sooner (at the front, it stays there).
    @inlinable
    mutating func took(_ count: Int) {
      if case .due(let after) = self { self = .due(after: Swift.max(after - count, 0)) }
    }
  }

  @usableFromInline
  enum State: UInt8 {
    /// No drain is scheduled or running: nothing waits (no event, no `registered`, no end).
    case idle
    /// A drain is scheduled or running (or paused by its downstream's pressure, to be woken).
    case draining
    /// The upstream has ended: no event is taken any more; a drain is scheduled or running, and
    /// delivers the end after the buffer.
    case ending
    /// Disposed, or the end was handed to the drain: nothing is taken and no drain starts again.
    case over
  }

  /// Disposed, or over (the drain has taken the end).
  @inlinable
  var isDisposed: Bool { state == .over }

  @usableFromInline
  enum ReceiveAction {
    /// Nothing to do: the event was ignored (disposed, ended), or nothing was due.
    case none
    /// The event waits in the buffer; a drain is already scheduled or running.
    case queued
    /// The caller now owns the drain: it must schedule it (or run it, when on the scheduler).
    case startDrain
    /// The buffer was full and an event was dropped: the oldest one (to release outside the lock),
    /// or `nil` when the new one was not kept.
    case dropped(Event?)
    /// `.backpressure`: the buffer has just reached `bufferLimit`: the caller raises the stage's
    /// gate (and owns the drain, to schedule, when `startDrain`).
    case pressure(startDrain: Bool)
  }

  /// An event arrived; with `endsRegistration`, the registration ends right after it.
  @inlinable
  mutating func eventReceived(_ event: Event, endsRegistration: Bool = false) -> ReceiveAction {
    // One byte compared: idle or draining (`ending` and `over` are the two higher values).
    guard state.rawValue <= State.draining.rawValue else { return .none }
    var dropped: Event?? = nil
    if buffer.count >= bufferLimit {
      switch overflowPolicy {
      case .dropNewest:
        // The buffer is full, so a drain is already scheduled: it will reach `registered`.
        if endsRegistration, registration.isPending { registration = .due(after: buffer.count) }
        return .dropped(nil)
      case .dropOldest:
        dropped = .some(buffer.pop())
        registration.took(1)
        if sampleOffset >= 0 { sampleOffset -= 1 }  // at 0, the timed event is dropped: -1
      case .backpressure:
        break  // never drops: the buffer goes past its limit by what `next` sends under pressure
      }
    }
    buffer.push(event)
    if endsRegistration, registration.isPending { registration = .due(after: buffer.count) }
    if let dropped { return .dropped(dropped) }
    let startsDrain = state == .idle
    state = .draining
    if overflowPolicy == .backpressure && !underPressure && buffer.count + inHand >= bufferLimit {
      underPressure = true
      return .pressure(startDrain: startsDrain)
    }
    return startsDrain ? .startDrain : .queued
  }

  /// `.backpressure`: whether taking an event out has brought the buffer down to the low
  /// watermark (`bufferLimit / 2`) while under pressure; the caller then releases the gate.
  @inlinable
  mutating func releasesPressure() -> Bool {
    guard underPressure && buffer.count <= bufferLimit / 2 else { return false }
    underPressure = false
    return true
  }

  /// The upstream's registration ended: `registered` is due after the events now waiting.
  @inlinable
  mutating func registrationEnded() -> ReceiveAction {
    guard !isDisposed, registration.isPending else { return .none }
    registration = .due(after: buffer.count)
    guard state == .idle else { return .none }  // a drain is scheduled or running: it will reach it
    state = .draining
    return .startDrain
  }

  /// The upstream ended: a stage under pressure releases it at once (nothing more can come from
  /// the producers it held back); returns whether it was.
  @inlinable
  mutating func releasesPressureAtEnd() -> Bool {
    guard underPressure else { return false }
    underPressure = false
    return true
  }

  /// The upstream ended: the end is due after the events now waiting (it takes no place among them).
  @inlinable
  mutating func endReceived() -> ReceiveAction {
    switch state {
    case .idle:
      state = .ending
      return .startDrain
    case .draining:
      state = .ending  // the drain that is scheduled or running delivers it
      return .none
    case .ending, .over:
      return .none  // after the end, or disposed
    }
  }

  /// How a drain ends (both modes).
  @usableFromInline
  enum DrainExit {
    /// Events are left, but this drain has delivered its share: schedule a new drain and return
    /// (so that other work on a serial queue gets a turn).
    case reschedule
    /// Nothing is left (or the delivery was disposed): the drain ends.
    case stop
    /// Every event has been delivered and the upstream has ended: the delivery is over (see
    /// ``ended()``); the drain takes the observer's closures and the upstream observation out
    /// with this step, calls `finished` (unless a `dispose()` wins) and ends.
    case finish(Disposal)
  }

  /// What the owner does with the upstream observation it has just been given.
  @usableFromInline
  enum AttachAction {
    /// Keep it, to dispose with this delivery.
    case keep
    /// Already disposed (or over): dispose it at once, outside the lock.
    case disposeAtOnce
  }

  /// The upstream observation was made: keep it, unless the delivery is already over.
  @inlinable
  func attached() -> AttachAction {
    isDisposed ? .disposeAtOnce : .keep
  }

  /// What disposal or the end takes out of the machine, to release outside the lock; the owner lets
  /// go of the observer's closures and the upstream observation with it, in the same critical
  /// section.
  @usableFromInline
  struct Disposal {
    /// The events still waiting: they leave `bufferedCount`.
    @usableFromInline var buffer: WorkQueue<Event>
    /// The stage was under pressure: the caller releases its gate.
    @usableFromInline var releasesPressure: Bool

    @inlinable
    init(buffer: WorkQueue<Event>, releasesPressure: Bool) {
      self.buffer = buffer
      self.releasesPressure = releasesPressure
    }
  }

  /// Delivered the end: forgets everything, as ``disposed()``; the owner hands `finished` to the
  /// drain. Over: no drain starts again.
  @inlinable
  mutating func ended() -> Disposal {
    disposed()
  }

  /// Disposed: forgets the waiting events (the caller releases them) and the due `registered`;
  /// the owner lets go of the observer's closures and the upstream observation with it.
  @usableFromInline
  mutating func disposed() -> Disposal {
    defer {
      registration = .absent
      buffer = WorkQueue()
      spare = WorkQueue()
      underPressure = false
      inHand = 0
      sampleOffset = -1
      takenSample = nil
      state = .over
    }
    return Disposal(buffer: buffer, releasesPressure: underPressure)
  }
}
