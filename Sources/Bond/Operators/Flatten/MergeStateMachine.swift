/// What reaches a `merge` observation's private serializer: an inner producer to observe, an
/// event of an inner producer, the end of a registration, the end of an inner producer, or the end
/// of the outer producer.
@usableFromInline
enum MergeInput<Inner, Event> {
  case inner(Inner)
  case event(Event)
  case registered
  case innerEnded
  case outerEnded
}

/// The decisions of one `merge` observation: the inner producers it keeps alive, the registrations
/// it waits for before forwarding `registered`, and what must end before the observation ends.
///
/// A pure value, owned by the single observer of the observation's serializer (never called
/// concurrently), so it needs no lock and can be tested with no threads. One method per input but
/// the events, which pass straight through (no decision: they never change the state); each returns
/// the ``Action`` its sink performs. An inner that arrives after the outer's end (the outer released
/// its observer, and a delivery was in flight) is observed, not kept. Impossible, so a
/// `preconditionFailure`: more registrations than counted, an inner's end with none observed, and
/// the outer's end twice.
@usableFromInline
struct MergeStateMachine<Inner> {
  @usableFromInline
  enum State {
    /// The outer producer is live (for an array: not every producer has arrived).
    case outerLive
    /// The outer producer has ended: the observation ends with the last inner.
    case outerEnded
  }

  /// What the sink must do after one input.
  @usableFromInline
  enum Action {
    /// Observe this inner now (and keep its observation).
    case observe(Inner)
    /// Call the observer's `registered`.
    case callRegistered
    /// Release these inner producers (their observations go on); then end when `thenEnd`.
    case release([Inner], thenEnd: Bool)
    /// End the observation.
    case end
    /// Nothing (an inner waits its turn, a registration is not the last, an inner ended).
    case ignore
  }

  @usableFromInline var state = State.outerLive
  /// The inner producers received, kept alive while the outer producer lives.
  @usableFromInline var retained: [Inner] = []
  /// Whether inner producers received are kept alive (false once the outer has ended, and for
  /// `merge(_:)` of an array, whose producers the operator value holds).
  @usableFromInline var retainsInners: Bool
  /// Registrations not finished yet (the outer's, or each producer's of an array).
  @usableFromInline var unregistered: Int
  /// Inner producers observed that have not ended.
  @usableFromInline var liveInners = 0
  /// At most this many inners observed at once (`merge(maxConcurrent:)`; `Int.max` otherwise).
  @usableFromInline let maxConcurrent: Int
  /// Inners waiting their turn, in the order they arrived (kept alive until observed).
  @usableFromInline var waiting = WorkQueue<Inner>()

  @inlinable
  init(registrations: Int, retainsInners: Bool, maxConcurrent: Int = .max) {
    unregistered = registrations
    self.retainsInners = retainsInners
    self.maxConcurrent = maxConcurrent
  }

  /// An inner producer arrived: observe it now, or (`ignore`) it waits until an observed one ends,
  /// when `maxConcurrent` are observed.
  @inlinable
  mutating func innerReceived(_ inner: Inner) -> Action {
    if retainsInners { retained.append(inner) }
    guard liveInners < maxConcurrent else {
      waiting.push(inner)
      return .ignore
    }
    liveInners += 1
    return .observe(inner)
  }

  /// A registration finished: `registered` is due after the last one.
  @inlinable
  mutating func registrationFinished() -> Action {
    guard unregistered > 0 else {
      preconditionFailure("MergeStateMachine.registrationFinished: more registrations than counted")
    }
    unregistered -= 1
    return unregistered == 0 ? .callRegistered : .ignore
  }

  /// An inner producer ended: observe the waiting inner whose turn it is now, or end when the outer
  /// and every inner have ended.
  @inlinable
  mutating func innerEnded() -> Action {
    guard liveInners > 0 else { preconditionFailure("MergeStateMachine.innerEnded: an inner ended with none observed") }
    if let next = waiting.pop() { return .observe(next) }
    liveInners -= 1
    guard case .outerEnded = state, liveInners == 0 else { return .ignore }
    return .end
  }

  /// The outer producer ended (or released its observer): stop keeping the inner producers alive,
  /// and end when every inner received has ended (or none was).
  @inlinable
  mutating func outerEnded() -> Action {
    guard case .outerLive = state else { preconditionFailure("MergeStateMachine.outerEnded: the outer ended twice") }
    state = .outerEnded
    retainsInners = false
    defer { retained = [] }
    return .release(retained, thenEnd: liveInners == 0 && waiting.isEmpty)
  }
}
