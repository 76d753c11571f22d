/// The state of one `combineLatest` observation: which sources have sent, which have finished
/// registering, and which have ended.
///
/// A pure value, owned by the single observer of the observation's serializer (never called
/// concurrently), so it needs no lock and can be tested with no threads. The latest events
/// themselves live in the observation's tuple storage (see ``CombineLatestSink``).
@usableFromInline
struct CombineLatestStateMachine {
  /// The sources that have not sent yet.
  @usableFromInline var silentSources: Int
  /// The sources that have not finished registering yet.
  @usableFromInline var unregisteredSources: Int
  /// The sources that have not ended yet.
  @usableFromInline var liveSources: Int

  @inlinable
  init(sourceCount: Int) {
    silentSources = sourceCount
    unregisteredSources = sourceCount
    liveSources = sourceCount
  }

  /// A source's event was stored as its latest; `isItsFirst` when that source had not sent before.
  /// - Returns: whether the tuple is complete: deliver it now.
  @inlinable
  mutating func eventStored(isItsFirst: Bool) -> Bool {
    if isItsFirst { silentSources -= 1 }
    return silentSources == 0
  }

  /// A source has finished registering.
  /// - Returns: true when it was the last one: the observation's `registered` is due now.
  @inlinable
  mutating func sourceRegistered() -> Bool {
    unregisteredSources -= 1
    return unregisteredSources == 0
  }

  /// A source ended; `hadSent` when it had sent an event.
  /// - Returns: true when the observation ends now: every source has ended, or this one never sent
  ///   (no tuple can come any more).
  @inlinable
  mutating func sourceEnded(hadSent: Bool) -> Bool {
    liveSources -= 1
    return !hadSent || liveSources == 0
  }
}
