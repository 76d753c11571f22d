/// The decisions of ``Delay`` for one observation: the events waiting for their time, in arrival
/// order, and where `registered` and the end go. Pure: the sink hands what it returns to the
/// delivery inside the same critical section, so the delivery sees the decisions in order.
///
/// Each event schedules one timer; each timer that fires releases the oldest waiting event, so the
/// events leave in the order they arrived even if two timers fire out of order.
/// `registered` is due right after the last event received before the upstream's registration
/// ended (at once if there was none); the end right after the last event.
/// Not thread-safe: the sink keeps it in a `LockedState`.
@usableFromInline
struct DelayStateMachine<Event: Sendable>: Sendable {
  /// Waiting events; `waiting[head...]` are still to be released.
  @usableFromInline var waiting: [Event] = []
  @usableFromInline var head = 0
  /// Events received so far, and released so far.
  @usableFromInline var received = 0
  @usableFromInline var released = 0
  /// `registered` is due right after the release of this many events.
  @usableFromInline var registeredAfter: Int?
  @usableFromInline var registeredDone = false
  /// The upstream ended: the end is due after the last waiting event.
  @usableFromInline var endPending = false
  @usableFromInline var isOver = false

  @inlinable
  init() {}

  /// An upstream event: it waits; returns whether to schedule its timer.
  @inlinable
  mutating func receive(_ event: Event) -> Bool {
    guard !isOver, !endPending else { return false }
    waiting.append(event)
    received += 1
    return true
  }

  /// The upstream's registration ended: returns whether `registered` is due now.
  @inlinable
  mutating func registrationEnded() -> Bool {
    guard !isOver, !registeredDone else { return false }
    if released == received {
      registeredDone = true
      return true
    }
    registeredAfter = received
    return false
  }

  /// A timer fired: the oldest waiting event, whether `registered` follows it, whether the end
  /// follows it.
  @inlinable
  mutating func fire() -> (event: Event, endsRegistration: Bool, ends: Bool)? {
    guard !isOver, head < waiting.count else { return nil }
    let event = waiting[head]
    head += 1
    released += 1
    if head == waiting.count {
      waiting.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 1024, head * 2 >= waiting.count {
      waiting.removeFirst(head)
      head = 0
    }
    var endsRegistration = false
    if let after = registeredAfter, after == released, !registeredDone {
      endsRegistration = true
      registeredDone = true
    }
    let ends = endPending && released == received
    if ends { isOver = true }
    return (event, endsRegistration, ends)
  }

  /// The upstream ended: returns whether the end is due now (nothing is waiting).
  @inlinable
  mutating func ended() -> Bool {
    guard !isOver, !endPending else { return false }
    endPending = true
    if released == received {
      isOver = true
      return true
    }
    return false
  }

  /// Disposed: the waiting events, released outside the lock.
  @inlinable
  mutating func disposed() -> [Event] {
    isOver = true
    let dropped = waiting
    waiting = []
    head = 0
    return dropped
  }
}
