/// The decisions of ``Throttle`` for one observation: when a window opens and ends, which event is
/// delivered, and where the `registered` callback goes. Pure: ``TimedSink`` performs the actions
/// (schedules the window's end, hands events to the delivery) after releasing its lock.
///
/// Each window has a generation number; its end carries it, so a late end of a window that is over
/// does nothing.
///
/// `registered` placement: the events received before the upstream's registration ended come from
/// the registration (its replay). If one of them is still pending when it ends, `registered` is due
/// right after that event is delivered; if a live event replaces it first, right away (the
/// registration then delivered nothing more).
/// The end (``TimedStateMachine/ended()``): the pending latest event is due at once, then the end.
/// Not thread-safe: the sink keeps it in a `LockedState`.
@usableFromInline
struct ThrottleStateMachine<Event: Sendable>: FlushingTimedStateMachine {
  @usableFromInline typealias Input = Event

  @usableFromInline
  enum State: Sendable {
    /// No window is open: the next event opens one.
    case idle
    /// A window is open: the cancel handle of its end (once stored), and the latest event of the
    /// window, to deliver at its end (modes `latest`, `leadingAndLatest`).
    case windowOpen(windowEnd: (any DisposableType)?, latest: PendingEvent<Event>?)
    /// Disposed or ended: nothing more is decided.
    case over
  }

  @usableFromInline let mode: ThrottleMode
  @usableFromInline var state = State.idle
  /// The generation of the current (or last) window.
  @usableFromInline var generation: UInt64 = 0

  @inlinable
  init(mode: ThrottleMode) {
    self.mode = mode
  }

  /// An event: it opens a window (delivered at once unless the mode is `latest`), or becomes the
  /// window's latest (a replaced latest is released outside the lock), or is dropped (`leading`).
  @inlinable
  mutating func receive(_ event: Event) -> TimedReceiveAction<Event> {
    switch state {
    case .over:
      return TimedReceiveAction()
    case .idle:
      generation &+= 1
      if mode == .latest {
        state = .windowOpen(windowEnd: nil, latest: PendingEvent(event))
        return TimedReceiveAction(schedule: generation)
      }
      state = .windowOpen(windowEnd: nil, latest: nil)
      return TimedReceiveAction(deliver: event, schedule: generation)
    case .windowOpen(let windowEnd, let replaced):
      guard mode != .leading else { return TimedReceiveAction() }
      state = .windowOpen(windowEnd: windowEnd, latest: PendingEvent(event))
      return TimedReceiveAction(registeredDue: replaced?.endsRegistration ?? false, released: replaced?.event)
    }
  }

  /// `registered` waits for the pending latest event, if any; else it is due now.
  @inlinable
  mutating func registrationEnded() -> Bool {
    switch state {
    case .over:
      return false
    case .windowOpen(let windowEnd, var latest?):
      latest.endsRegistration = true
      state = .windowOpen(windowEnd: windowEnd, latest: latest)
      return false
    case .idle, .windowOpen(_, nil):
      return true
    }
  }

  @inlinable
  var registeredAwaitsPending: Bool {
    guard case .windowOpen(_, let latest?) = state else { return false }
    return latest.endsRegistration
  }

  /// Stores the cancel handle of window `generation`'s end; returns it when it must be disposed
  /// (disposed or ended meanwhile, or that window is already over).
  @inlinable
  mutating func timerScheduled(_ handle: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    guard case .windowOpen(let windowEnd, let latest) = state, generation == self.generation else { return handle }
    if windowEnd != nil { preconditionFailure("ThrottleStateMachine.timerScheduled: a second end for one window") }
    state = .windowOpen(windowEnd: handle, latest: latest)
    return nil
  }

  /// The end of window `generation`: its latest event is delivered (in `leadingAndLatest` mode it
  /// opens the next window, as RxSwift's `throttle(latest: true)`), or the window closes.
  @inlinable
  mutating func fire(generation: UInt64) -> TimedFireAction<Event> {
    switch state {
    case .over:
      return TimedFireAction()
    case .idle:
      // The window of this generation was closed by its own end: no window ends twice.
      if generation == self.generation {
        preconditionFailure("ThrottleStateMachine.fire: the end of the current window fired twice")
      }
      return TimedFireAction()
    case .windowOpen(_, let latest):
      guard generation == self.generation else { return TimedFireAction() }
      guard let latest else {
        state = .idle
        return TimedFireAction()
      }
      guard mode == .leadingAndLatest else {
        state = .idle
        return TimedFireAction(deliver: (latest.event, latest.endsRegistration))
      }
      self.generation &+= 1
      state = .windowOpen(windowEnd: nil, latest: nil)
      return TimedFireAction(deliver: (latest.event, latest.endsRegistration), schedule: self.generation)
    }
  }

  @inlinable
  static var usesLatestSlot: Bool { true }

  /// While a window is open, an event only replaces the latest (`latest`, `leadingAndLatest`) or is
  /// dropped (`leading`): ``TimedSink`` does that without its lock. Not while the latest is the
  /// registration's last event (`registered` waits for it: replacing it is a decision).
  @inlinable
  var latestSlotUse: LatestSlotUse {
    guard case .windowOpen(_, let latest) = state else { return .none }
    if mode == .leading { return .dropEvents }
    return latest?.endsRegistration == true ? .none : .keepLatest
  }

  @inlinable
  mutating func takeLatestForSlot() -> Event? {
    guard case .windowOpen(let windowEnd, let latest) = state else {
      preconditionFailure("ThrottleStateMachine.takeLatestForSlot: no window is open")
    }
    state = .windowOpen(windowEnd: windowEnd, latest: nil)
    return latest?.event
  }

  /// The slot's event comes back. When the machine holds a latest already, it came after the slot's
  /// (another sender decided under the lock while this one held the slot, which an upstream that
  /// keeps the contract never does): the slot's, older, is released.
  @inlinable
  mutating func restoreLatestFromSlot(_ latest: Event?) -> Event? {
    guard let latest else { return nil }
    switch state {
    case .over, .windowOpen(_, .some):
      return latest
    case .windowOpen(let windowEnd, nil):
      state = .windowOpen(windowEnd: windowEnd, latest: PendingEvent(latest))
      return nil
    case .idle:
      preconditionFailure("ThrottleStateMachine.restoreLatestFromSlot: the window closed while the slot was out")
    }
  }

  /// Disposed (or ended, see ``FlushingTimedStateMachine``): the window's end to cancel and the
  /// pending event to release (outside the lock).
  @inlinable
  mutating func disposed() -> (timer: (any DisposableType)?, dropped: Event?) {
    defer { state = .over }
    guard case .windowOpen(let windowEnd, let latest) = state else { return (nil, nil) }
    return (windowEnd, latest?.event)
  }
}
