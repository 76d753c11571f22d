/// The decisions of one `combineLatest` observation: whether every source has sent (the tuple is
/// complete), and counts of the sources that have not finished registering and not ended.
///
/// A pure value, owned by the single observer of the observation's serializer (never called
/// concurrently), so it needs no lock and can be tested with no threads. The latest events
/// themselves live in the observation's tuple storage (see ``CombineLatestSink``). One method per
/// input, each returning the ``Action`` its sink performs. Impossible, so a `preconditionFailure`:
/// a source's first event once every source has sent, and more registrations or ends than sources.
@usableFromInline
struct CombineLatestStateMachine {
  @usableFromInline
  enum State: Equatable {
    /// Waiting for the first event of `silentSources` sources: no tuple yet.
    case waitingForFirstEvents(silentSources: Int)
    /// Every source has sent: each event delivers the tuple.
    case combining
  }

  /// What the sink must do after one input.
  @usableFromInline
  enum Action: Equatable {
    /// Deliver the tuple of the latest events.
    case deliverTuple
    /// Call the observer's `registered`.
    case callRegistered
    /// End the observation.
    case end
    /// Nothing yet.
    case ignore
  }

  @usableFromInline var state: State
  /// The sources that have not finished registering yet.
  @usableFromInline var unregisteredSources: Int
  /// The sources that have not ended yet.
  @usableFromInline var liveSources: Int

  @inlinable
  init(sourceCount: Int) {
    state = .waitingForFirstEvents(silentSources: sourceCount)
    unregisteredSources = sourceCount
    liveSources = sourceCount
  }

  /// A source's event was stored as its latest; `isItsFirst` when that source had not sent before.
  @inlinable @inline(__always)
  mutating func eventStored(isItsFirst: Bool) -> Action {
    switch state {
    case .combining:
      if isItsFirst {
        preconditionFailure("CombineLatestStateMachine.eventStored: a first event after every source had sent")
      }
      return .deliverTuple
    case .waitingForFirstEvents(let silentSources):
      guard isItsFirst else { return .ignore }
      guard silentSources > 1 else {
        state = .combining
        return .deliverTuple
      }
      state = .waitingForFirstEvents(silentSources: silentSources &- 1)
      return .ignore
    }
  }

  /// A source has finished registering: the observation's `registered` is due after the last one.
  @inlinable
  mutating func sourceRegistered() -> Action {
    guard unregisteredSources > 0 else {
      preconditionFailure("CombineLatestStateMachine.sourceRegistered: more registrations than sources")
    }
    unregisteredSources -= 1
    return unregisteredSources == 0 ? .callRegistered : .ignore
  }

  /// A source ended; `hadSent` when it had sent an event. The observation ends when every source has
  /// ended, or when this one never sent (no tuple can come any more).
  @inlinable
  mutating func sourceEnded(hadSent: Bool) -> Action {
    guard liveSources > 0 else { preconditionFailure("CombineLatestStateMachine.sourceEnded: more ends than sources") }
    liveSources -= 1
    return !hadSent || liveSources == 0 ? .end : .ignore
  }
}
