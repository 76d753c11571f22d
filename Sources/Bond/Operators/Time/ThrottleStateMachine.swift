/// The decisions of ``Throttle`` for one observation: when a window opens and ends, which event is
/// delivered, and where the `registered` callback goes. Pure: the sink performs the actions
/// (schedules the window's end, sends to the delivery) after releasing its lock.
///
/// Each window has a generation number; the window-end action carries it, so a late action of a
/// window that is over does nothing.
///
/// `registered` placement: the events received before the upstream's registration ended come from
/// the registration (its replay). If one of them is still pending when it ends, `registered` is due
/// right after that event is delivered; if a live event replaces it first, right away (the
/// registration then delivered nothing more).
/// The end (``TimedStateMachine/ended()``): the pending latest event is due at once, then the end.
/// Not thread-safe: the sink (`TimedSink`) keeps it in a `LockedState`.
@usableFromInline
struct ThrottleStateMachine<Event: Sendable>: Sendable {
  @usableFromInline let mode: ThrottleMode
  @usableFromInline var isWindowOpen = false
  /// The generation of the current (or last) window.
  @usableFromInline var generation: UInt64 = 0
  /// The action that ends the current window, to cancel on dispose.
  @usableFromInline var windowEnd: (any DisposableType)?
  /// The latest event of the window, to deliver at its end (modes `latest`, `leadingAndLatest`).
  @usableFromInline var latest: Event?
  /// `registered` waits for `latest`, a registration event, to be delivered.
  @usableFromInline var registeredAwaitsLatest = false
  @usableFromInline var isDisposed = false

  @inlinable
  init(mode: ThrottleMode) {
    self.mode = mode
  }

  @usableFromInline
  enum ReceiveAction: Sendable {
    /// Nothing to do; the value (a replaced `latest`) is released outside the lock.
    case none(released: Event?)
    /// Open a window: schedule its end.
    case openWindow(generation: UInt64)
    /// Deliver the event now and open a window.
    case deliverAndOpenWindow(Event, generation: UInt64)
    /// `registered` is due now (a live event replaced the registration's pending event).
    case registeredDue(released: Event?)
  }

  @inlinable
  mutating func eventReceived(_ event: Event) -> ReceiveAction {
    guard !isDisposed else { return .none(released: nil) }
    guard isWindowOpen else {
      isWindowOpen = true
      generation &+= 1
      if mode == .latest {
        latest = event
        return .openWindow(generation: generation)
      }
      return .deliverAndOpenWindow(event, generation: generation)
    }
    guard mode != .leading else { return .none(released: nil) }
    let replaced = latest
    latest = event
    if registeredAwaitsLatest {
      registeredAwaitsLatest = false
      return .registeredDue(released: replaced)
    }
    return .none(released: replaced)
  }

  /// The upstream's registration ended. Returns whether `registered` is due now.
  @inlinable
  mutating func registrationEnded() -> Bool {
    guard !isDisposed else { return false }
    if latest != nil {
      registeredAwaitsLatest = true
      return false
    }
    return true
  }

  /// Stores the cancel handle of window `generation`'s end; returns it when it must be disposed
  /// (disposed meanwhile, or that window is already over).
  @inlinable
  mutating func windowEndScheduled(_ disposable: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    guard !isDisposed, isWindowOpen, generation == self.generation else { return disposable }
    windowEnd = disposable
    return nil
  }

  @usableFromInline
  enum EndAction: Sendable {
    case none
    /// Deliver the event; with `endsRegistration`, `registered` is due right after it.
    case deliver(Event, endsRegistration: Bool)
    /// Deliver the event (as above) and open a new window (mode `leadingAndLatest`).
    case deliverAndOpenWindow(Event, endsRegistration: Bool, generation: UInt64)
  }

  /// The end of window `generation` is due.
  @inlinable
  mutating func windowEnded(generation: UInt64) -> EndAction {
    guard !isDisposed, isWindowOpen, generation == self.generation else { return .none }
    windowEnd = nil
    let endsRegistration = registeredAwaitsLatest
    registeredAwaitsLatest = false
    guard let event = latest else {
      isWindowOpen = false
      return .none
    }
    latest = nil
    if mode == .leadingAndLatest {
      // The delivered event opens the next window (as RxSwift's `throttle(latest: true)`).
      self.generation &+= 1
      return .deliverAndOpenWindow(event, endsRegistration: endsRegistration, generation: self.generation)
    }
    isWindowOpen = false
    return .deliver(event, endsRegistration: endsRegistration)
  }

  /// Disposed: returns the window's end to cancel and the pending event to release (outside the lock).
  @inlinable
  mutating func disposed() -> (timer: (any DisposableType)?, dropped: Event?) {
    defer {
      isDisposed = true
      windowEnd = nil
      latest = nil
      registeredAwaitsLatest = false
    }
    return (windowEnd, latest)
  }
}

extension ThrottleStateMachine: FlushingTimedStateMachine {
  @inlinable
  var registeredAwaitsPending: Bool { registeredAwaitsLatest }

  @inlinable
  mutating func receive(_ event: Event) -> TimedReceiveAction<Event> {
    switch eventReceived(event) {
    case .none(let released): return TimedReceiveAction(released: released)
    case .openWindow(let generation): return TimedReceiveAction(schedule: generation)
    case .deliverAndOpenWindow(let event, let generation):
      return TimedReceiveAction(deliver: event, schedule: generation)
    case .registeredDue(let released): return TimedReceiveAction(registeredDue: true, released: released)
    }
  }

  @inlinable
  mutating func timerScheduled(_ disposable: any DisposableType, generation: UInt64) -> (any DisposableType)? {
    windowEndScheduled(disposable, generation: generation)
  }

  @inlinable
  mutating func fire(generation: UInt64) -> TimedFireAction<Event> {
    switch windowEnded(generation: generation) {
    case .none: return TimedFireAction()
    case .deliver(let event, let endsRegistration): return TimedFireAction(deliver: (event, endsRegistration))
    case .deliverAndOpenWindow(let event, let endsRegistration, let next):
      return TimedFireAction(deliver: (event, endsRegistration), schedule: next)
    }
  }
}
