/// The decisions of ``TimedCollect`` for one observation, as ``TimedSink`` performs them: the array
/// being filled, its timer (by generation, so a late timer of an array already delivered does
/// nothing), the end. Pure: the sink hands the arrays to the delivery inside the same critical
/// section, so they are delivered in decision order. Never decides an empty array.
/// Not thread-safe: the sink keeps it in a `LockedState`.
@usableFromInline
struct TimedCollectStateMachine<Element: Sendable>: FlushingTimedStateMachine {
  @usableFromInline typealias Input = Element
  @usableFromInline typealias Event = [Element]

  @usableFromInline
  enum State: Sendable {
    /// No array is being filled.
    case idle
    /// An array is being filled; its timer's cancel handle, once stored.
    case filling([Element], timer: (any DisposableType)?)
    /// Disposed or ended: nothing more is decided.
    case over
  }

  @usableFromInline let count: Int
  @usableFromInline var state = State.idle
  /// The generation of the current array's timer.
  @usableFromInline var generation: UInt64 = 0

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
    switch state {
    case .over:
      return TimedReceiveAction()
    case .idle:
      generation &+= 1
      guard count > 1 else {
        generation &+= 1  // that timer is never scheduled
        return TimedReceiveAction(deliver: [input])
      }
      var buffer: [Element] = []
      buffer.reserveCapacity(count)
      buffer.append(input)
      state = .filling(buffer, timer: nil)
      return TimedReceiveAction(schedule: generation)
    case .filling(var buffer, let timer):
      state = .over  // drops the state's reference: the append below does not copy the array
      buffer.append(input)
      guard buffer.count >= count else {
        state = .filling(buffer, timer: timer)
        return TimedReceiveAction()
      }
      state = .idle
      generation &+= 1  // the timer of this array, if already scheduled, is stale
      return TimedReceiveAction(deliver: buffer, cancel: timer)
    }
  }

  /// The end of the registration passes through at once.
  @inlinable
  mutating func registrationEnded() -> Bool { true }

  /// Stores the timer of `generation`; returns it when it must be cancelled (stale or over).
  @inlinable
  mutating func timerScheduled(_ handle: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    guard generation == self.generation, case .filling(let buffer, let timer) = state else { return handle }
    guard timer == nil else {
      preconditionFailure("TimedCollectStateMachine.timerScheduled: a second timer for one window")
    }
    state = .filling(buffer, timer: handle)
    return nil
  }

  /// The timer of `generation` fired: the array to deliver, if it is still the current one.
  @inlinable
  mutating func fire(generation: UInt64) -> TimedFireAction<[Element]> {
    guard generation == self.generation, case .filling(let partial, _) = state else { return TimedFireAction() }
    state = .idle
    self.generation &+= 1
    return TimedFireAction(deliver: (partial, false))
  }

  /// Disposed, or ended (``TimedStateMachine/ended()``, which delivers the partial array): the
  /// timer to cancel and the partial array, if any; nothing is decided afterwards.
  @inlinable
  mutating func disposed() -> (timer: (any DisposableType)?, dropped: [Element]?) {
    defer { state = .over }
    guard case .filling(let buffer, let timer) = state else { return (nil, nil) }
    return (timer, buffer)
  }
}
