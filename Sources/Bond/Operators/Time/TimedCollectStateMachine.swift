/// The decisions of ``TimedCollect`` for one observation: the array being filled, its timer (by
/// generation, so a late timer of an array already delivered does nothing), the end. Pure: the
/// sink hands the arrays to the delivery inside the same critical section, so they are delivered
/// in decision order. Never decides an empty array.
/// Not thread-safe: the sink keeps it in a `LockedState`.
@usableFromInline
struct TimedCollectStateMachine<Event: Sendable>: Sendable {
  @usableFromInline let count: Int
  @usableFromInline var buffer: [Event] = []
  /// The generation of the current array's timer.
  @usableFromInline var generation: UInt64 = 0
  @usableFromInline var timer: (any DisposableType)?
  @usableFromInline var isOver = false

  @inlinable
  init(count: Int) {
    self.count = count
  }

  /// An upstream event: the full array to deliver, the timer to schedule (the array's first
  /// event), the timer to cancel (the array is full).
  @inlinable
  mutating func receive(
    _ event: Event
  ) -> (deliver: [Event]?, schedule: UInt64?, cancel: (any DisposableType)?) {
    guard !isOver else { return (nil, nil, nil) }
    var schedule: UInt64?
    if buffer.isEmpty {
      buffer.reserveCapacity(count)
      generation &+= 1
      schedule = generation
    }
    buffer.append(event)
    guard buffer.count >= count else { return (nil, schedule, nil) }
    let full = buffer
    buffer = []
    let cancel = timer
    timer = nil
    generation &+= 1  // the timer of this array, if already scheduled, is stale
    return (full, nil, cancel)
  }

  /// Stores the timer of `generation`; returns it when it must be cancelled (stale or over).
  @inlinable
  mutating func timerScheduled(_ handle: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    guard !isOver, generation == self.generation, !buffer.isEmpty else { return handle }
    timer = handle
    return nil
  }

  /// The timer of `generation` fired: the array to deliver, if it is still the current one.
  @inlinable
  mutating func fire(generation: UInt64) -> [Event]? {
    guard !isOver, generation == self.generation, !buffer.isEmpty else { return nil }
    let partial = buffer
    buffer = []
    timer = nil
    self.generation &+= 1
    return partial
  }

  /// The upstream ended: the partial array (if any) and the timer to cancel; nothing more after.
  @inlinable
  mutating func ended() -> (flush: [Event]?, cancel: (any DisposableType)?) {
    guard !isOver else { return (nil, nil) }
    let (cancel, pending) = disposed()
    return (pending.isEmpty ? nil : pending, cancel)
  }

  /// Disposed: the timer to cancel and the partial array, released outside the lock.
  @inlinable
  mutating func disposed() -> (timer: (any DisposableType)?, pending: [Event]) {
    isOver = true
    let result = (timer, buffer)
    timer = nil
    buffer = []
    return result
  }
}
