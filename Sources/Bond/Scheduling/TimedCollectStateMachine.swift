/// The decisions of ``TimedCollect`` for one observation, as ``TimedSink`` performs them: the array
/// being filled, its timer (by generation, so a late timer of an array already delivered does
/// nothing), the end. Pure: the sink hands the arrays to the delivery inside the same critical
/// section, so they are delivered in decision order. Never decides an empty array.
/// Not thread-safe: the sink keeps it in a `LockedState`.
@usableFromInline
struct TimedCollectStateMachine<Element: Sendable>: FlushingTimedStateMachine {
  @usableFromInline typealias Input = Element
  @usableFromInline typealias Event = [Element]

  @usableFromInline let count: Int
  @usableFromInline var buffer: [Element] = []
  /// The generation of the current array's timer.
  @usableFromInline var generation: UInt64 = 0
  @usableFromInline var timer: (any DisposableType)?
  @usableFromInline var isOver = false

  @inlinable
  init(count: Int) {
    self.count = count
  }

  /// `registered` never waits: the arrays of the registration are those it filled.
  @inlinable
  var registeredAwaitsPending: Bool { false }

  /// An upstream event: the full array to deliver, the timer to schedule (the array's first
  /// event), the timer to cancel (the array is full).
  @inlinable
  mutating func receive(_ input: Element) -> TimedReceiveAction<[Element]> {
    guard !isOver else { return TimedReceiveAction() }
    var schedule: UInt64?
    if buffer.isEmpty {
      buffer.reserveCapacity(count)
      generation &+= 1
      schedule = generation
    }
    buffer.append(input)
    guard buffer.count >= count else { return TimedReceiveAction(schedule: schedule) }
    let full = buffer
    buffer = []
    let cancel = timer
    timer = nil
    generation &+= 1  // the timer of this array, if already scheduled, is stale
    return TimedReceiveAction(deliver: full, cancel: cancel)
  }

  /// The end of the registration passes through at once.
  @inlinable
  mutating func registrationEnded() -> Bool { true }

  /// Stores the timer of `generation`; returns it when it must be cancelled (stale or over).
  @inlinable
  mutating func timerScheduled(_ handle: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    guard !isOver, generation == self.generation, !buffer.isEmpty else { return handle }
    timer = handle
    return nil
  }

  /// The timer of `generation` fired: the array to deliver, if it is still the current one.
  @inlinable
  mutating func fire(generation: UInt64) -> TimedFireAction<[Element]> {
    guard !isOver, generation == self.generation, !buffer.isEmpty else { return TimedFireAction() }
    let partial = buffer
    buffer = []
    timer = nil
    self.generation &+= 1
    return TimedFireAction(deliver: (partial, false))
  }

  /// Disposed, or ended (``TimedStateMachine/ended()``, which delivers the partial array): the
  /// timer to cancel and the partial array, if any; nothing is decided afterwards.
  @inlinable
  mutating func disposed() -> (timer: (any DisposableType)?, dropped: [Element]?) {
    isOver = true
    let result = (timer, buffer.isEmpty ? nil : buffer)
    timer = nil
    buffer = []
    return result
  }
}
