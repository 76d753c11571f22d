/// The state of one `zip` observation: how many unmatched events each source has buffered, which
/// sources have ended, and which have finished registering.
///
/// A pure value, owned by the single observer of the observation's serializer (never called
/// concurrently), so it needs no lock and can be tested with no threads.
@usableFromInline
struct ZipStateMachine {
  /// The events queued per source since the start. A source's unmatched events are its count less
  /// the tuples delivered: a tuple changes one count, not one per source (each write of an array
  /// held by the sink checks that the array is not shared).
  @usableFromInline var queued: [Int]
  /// The tuples delivered.
  @usableFromInline var delivered = 0
  /// Whether each source has ended.
  @usableFromInline var ended: [Bool]
  /// The sources with nothing buffered.
  @usableFromInline var emptySources: Int
  /// The sources that have not finished registering yet.
  @usableFromInline var unregisteredSources: Int
  /// Whether the end was reported.
  @usableFromInline var hasEnded = false

  @inlinable
  init(sourceCount: Int) {
    queued = Array(repeating: 0, count: sourceCount)
    ended = Array(repeating: false, count: sourceCount)
    emptySources = sourceCount
    unregisteredSources = sourceCount
  }

  /// The unmatched events buffered of the source at `position`.
  @inlinable
  func pending(_ position: Int) -> Int { queued[position] - delivered }

  /// Whether the source at `position` has an event buffered, not matched yet.
  @inlinable
  func hasUnmatched(_ position: Int) -> Bool { queued[position] != delivered }

  /// A source's event was buffered.
  /// - Returns: whether a tuple is complete: take one event of each source and deliver it, then
  ///   call ``tupleDelivered()``.
  @inlinable
  mutating func eventQueued(position: Int) -> Bool {
    guard !hasEnded else { return false }
    if queued[position] == delivered { emptySources -= 1 }
    queued[position] += 1
    return emptySources == 0
  }

  /// One event of each source was taken into a tuple.
  /// - Returns: whether the observation ends after this tuple: an ended source has nothing left.
  @inlinable
  mutating func tupleDelivered() -> Bool {
    delivered += 1
    var ends = false
    for position in queued.indices where queued[position] == delivered {
      emptySources += 1
      if ended[position] { ends = true }
    }
    if ends { hasEnded = true }
    return ends
  }

  /// A source has finished registering.
  /// - Returns: true when it was the last one: the observation's `registered` is due now.
  @inlinable
  mutating func sourceRegistered() -> Bool {
    unregisteredSources -= 1
    return unregisteredSources == 0
  }

  /// A source ended (after all its events were buffered).
  /// - Returns: true when the observation ends now: it has nothing left unmatched.
  @inlinable
  mutating func sourceEnded(position: Int) -> Bool {
    guard !hasEnded else { return false }
    ended[position] = true
    if pending(position) == 0 { hasEnded = true }
    return hasEnded
  }
}
