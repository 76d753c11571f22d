/// What reaches a `switchToLatest` observation's private serializer: an inner producer to switch
/// to, an event or the end of an inner producer tagged with the generation of its observation, the
/// end of the outer's registration, or the end of the outer producer.
@usableFromInline
enum SwitchToLatestInput<Inner, Event> {
  case inner(Inner)
  case event(Event, generation: Int)
  case registered
  case innerEnded(generation: Int)
  case outerEnded
}

/// The decisions of one `switchToLatest` observation: which inner observation is the current one.
///
/// Each inner producer received starts a new generation; an inner's events carry the generation of
/// the observation that received them, and only those of the current generation are forwarded. The
/// serializer delivers everything in one order, so once a newer inner has arrived, an event of an
/// older one (even one sent concurrently with the switch, or already queued) is dropped.
///
/// A pure value, owned by the single observer of the observation's serializer (never called
/// concurrently), so it needs no lock and can be tested with no threads. One method per input, each
/// returning the ``Action`` its sink performs. An older inner's event or end, and an inner after
/// the outer's end (the outer released its observer while a delivery was in flight, observed but
/// not kept), can happen and are handled; the outer's end twice cannot (`preconditionFailure`).
@usableFromInline
struct SwitchToLatestStateMachine<Inner> {
  @usableFromInline
  enum State {
    /// The outer producer is live: `current`, the latest inner (kept alive; `nil` before the first),
    /// and whether its observation has ended (`true` while there is none).
    case outerLive(current: Inner?, currentHasEnded: Bool)
    /// The outer producer has ended: the observation ends with the latest inner.
    case outerEnded(currentHasEnded: Bool)
  }

  /// What the sink must do after one input.
  @usableFromInline
  enum Action<Event> {
    /// Deliver the event (of the current inner).
    case deliver(Event)
    /// Dispose the current inner's observation, then observe `inner` with `generation`; release
    /// `released` (the previous inner) after that.
    case switchTo(Inner, generation: Int, released: Inner?)
    /// Call the observer's `registered`.
    case callRegistered
    /// Release `released` (its observation goes on); then end when `thenEnd`.
    case release(Inner?, thenEnd: Bool)
    /// End the observation.
    case end
    /// Nothing (an older inner's event or end, or the current inner's end while the outer lives).
    case ignore
  }

  @usableFromInline var state = State.outerLive(current: nil, currentHasEnded: true)
  /// The generation of the current inner observation (0: none yet).
  @usableFromInline var generation = 0

  @inlinable
  init() {}

  /// A newer inner producer arrived: switch to it, with a new generation.
  @inlinable
  mutating func innerReceived<Event>(_ inner: Inner) -> Action<Event> {
    generation += 1
    switch state {
    case .outerLive(let current, _):
      state = .outerLive(current: inner, currentHasEnded: false)
      return .switchTo(inner, generation: generation, released: current)
    case .outerEnded:
      state = .outerEnded(currentHasEnded: false)
      return .switchTo(inner, generation: generation, released: nil)
    }
  }

  /// An event of the inner observation of `generation`: forwarded when it is the current one.
  @inlinable
  mutating func received<Event>(_ event: Event, generation: Int) -> Action<Event> {
    generation == self.generation ? .deliver(event) : .ignore
  }

  /// The outer's registration ended: `registered` is due (the sink calls it once).
  @inlinable
  mutating func registrationEnded<Event>() -> Action<Event> {
    .callRegistered
  }

  /// The inner observation of `generation` ended; an older inner's end changes nothing. Ends when
  /// the outer has ended and this is the latest inner.
  @inlinable
  mutating func innerEnded<Event>(generation: Int) -> Action<Event> {
    guard generation == self.generation else { return .ignore }
    switch state {
    case .outerLive(let current, _):
      state = .outerLive(current: current, currentHasEnded: true)
      return .ignore
    case .outerEnded:
      state = .outerEnded(currentHasEnded: true)
      return .end
    }
  }

  /// The outer producer ended (or released its observer): stop keeping the current inner alive, and
  /// end when the latest inner has ended (or there was none).
  @inlinable
  mutating func outerEnded<Event>() -> Action<Event> {
    guard case .outerLive(let current, let currentHasEnded) = state else {
      preconditionFailure("SwitchToLatestStateMachine.outerEnded: the outer ended twice")
    }
    state = .outerEnded(currentHasEnded: currentHasEnded)
    return .release(current, thenEnd: currentHasEnded)
  }
}
