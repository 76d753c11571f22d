/// What an operator that ends early (`take`, `take(while:)`) does with one upstream event.
@usableFromInline
enum EarlyEndDecision {
  /// Deliver it; more may follow.
  case deliver
  /// Deliver it, then end: it is the last one.
  case deliverThenEnd
  /// Do not deliver it; end now.
  case end
}

/// The decisions of one observation of an operator that ends early: a pure value, called in the
/// upstream's delivery order (never concurrently, guarantee 1), one method per input.
///
/// An event or the upstream's end after the early end can happen (the rest of a replay, before the
/// upstream's observation can be disposed) and is ignored; a registration that is not due cannot,
/// and stops with `preconditionFailure`.
@usableFromInline
struct EarlyEndStateMachine {
  @usableFromInline
  enum State {
    /// Forwarding: `remaining` events still to deliver when counted (`take`), and `registeredDue`
    /// while the observer's `registered` has yet to be called.
    case forwarding(remaining: Int?, registeredDue: Bool)
    /// Ended: nothing more is delivered.
    case ended
  }

  /// What the caller must do with one input.
  @usableFromInline
  enum Action: Equatable {
    /// Deliver the event.
    case deliver
    /// Deliver the event, then end (calling `registered` first when `registered` is `true`).
    case deliverThenEnd(registered: Bool)
    /// Call the observer's `registered`.
    case callRegistered
    /// End now (calling `registered` first when `registered` is `true`).
    case end(registered: Bool)
    /// Nothing.
    case ignore
  }

  @usableFromInline var state: State

  @inlinable
  init(count: Int?, registeredDue: Bool) {
    precondition(count.map { $0 > 0 } ?? true, "EarlyEndStateMachine.init: a count of 0 or less ends before the start")
    state = .forwarding(remaining: count, registeredDue: registeredDue)
  }

  /// An upstream event, and what the operator's predicate (if any) decided about it.
  @inlinable
  mutating func received(_ decision: EarlyEndDecision) -> Action {
    // After the end: the rest of a replay, before the upstream's observation can be disposed.
    guard case .forwarding(let remaining, let registeredDue) = state else { return .ignore }
    switch decision {
    case .deliver:
      guard let remaining else { return .deliver }
      if remaining > 1 {
        state = .forwarding(remaining: remaining - 1, registeredDue: registeredDue)
        return .deliver
      }
      state = .ended
      return .deliverThenEnd(registered: registeredDue)
    case .deliverThenEnd:
      state = .ended
      return .deliverThenEnd(registered: registeredDue)
    case .end:
      state = .ended
      return .end(registered: registeredDue)
    }
  }

  /// The upstream's registration ended.
  @inlinable
  mutating func registrationEnded() -> Action {
    switch state {
    case .forwarding(let remaining, registeredDue: true):
      state = .forwarding(remaining: remaining, registeredDue: false)
      return .callRegistered
    case .forwarding(_, registeredDue: false):
      preconditionFailure(
        "EarlyEndStateMachine.registrationEnded: registration ended twice, or with no registered to call"
      )
    case .ended:
      return .ignore  // ended during the registration: the end called `registered` first
    }
  }

  /// The upstream ended.
  @inlinable
  mutating func upstreamEnded() -> Action {
    guard case .forwarding(_, let registeredDue) = state else { return .ignore }  // it ended early
    state = .ended
    return .end(registered: registeredDue)
  }
}
