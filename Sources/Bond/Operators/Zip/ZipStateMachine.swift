/// The state of one `zip` observation: how many unmatched events each source has buffered, which
/// sources have ended, and which have finished registering.
///
/// A value with no threads, owned by the single observer of the observation's serializer (never
/// called concurrently), so it needs no lock and can be tested on its own. Its per-source state is
/// one allocation written in place (an array held by the sink would pay a uniqueness check and a
/// bounds check per write, the larger part of an event's cost); its owner frees it with
/// ``deallocate()`` (the core's `deinit`), and copies must not outlive that.
// Not `~Copyable` (which would free it in a `deinit`): with one, stored in the core, Swift 6.3.1's
// thread-sanitizer build of the module failed in IRGen ("Invalid bitcast").
@usableFromInline
struct ZipStateMachine {
  /// One source's part of the state.
  @usableFromInline
  struct Source {
    /// Its events buffered since the start. Its unmatched ones (the oldest in the tuple, the others
    /// queued) are this less the tuples delivered: a tuple writes one count, not one per source.
    @usableFromInline var queued = 0
    /// Whether it has ended.
    @usableFromInline var ended = false

    @inlinable
    init() {}
  }

  /// Each source's state, by position.
  @usableFromInline let sources: UnsafeMutableBufferPointer<Source>
  /// The tuples delivered.
  @usableFromInline var delivered = 0
  /// The sources with nothing buffered.
  @usableFromInline var emptySources: Int
  /// The sources with two or more events unmatched: when none, a tuple leaves every source empty
  /// (the sources are in step) and is decided with no loop over them.
  @usableFromInline var sourcesWithMore = 0
  /// Whether a source has ended (its events may still be unmatched).
  @usableFromInline var aSourceEnded = false
  /// The sources that have not finished registering yet.
  @usableFromInline var unregisteredSources: Int
  /// Whether the end was reported.
  @usableFromInline var hasEnded = false

  @inlinable
  init(sourceCount: Int) {
    sources = .allocate(capacity: sourceCount)
    sources.initialize(repeating: Source())
    emptySources = sourceCount
    unregisteredSources = sourceCount
  }

  /// Frees the per-source state (the owner, once, at its end).
  @inlinable
  func deallocate() {
    sources.deallocate()
  }

  /// The unmatched events buffered of the source at `position`.
  @inlinable
  func pending(_ position: Int) -> Int { sources[position].queued &- delivered }

  /// Whether the source at `position` has an event buffered, not matched yet.
  @inlinable
  func hasUnmatched(_ position: Int) -> Bool { sources[position].queued != delivered }

  /// A source's event was buffered.
  /// - Returns: whether a tuple is complete: take one event of each source, call
  ///   ``tupleDelivered()`` and deliver it.
  @inlinable
  mutating func eventQueued(position: Int) -> Bool {
    guard !hasEnded else { return false }
    // Wrapping: counts of events cannot reach Int.max.
    let pending = pending(position)
    if pending == 0 {
      emptySources &-= 1
    } else if pending == 1 {
      sourcesWithMore &+= 1
    }
    sources[position].queued &+= 1
    return emptySources == 0
  }

  /// What to do after a tuple was taken, besides delivering it.
  @usableFromInline
  enum TupleAction {
    /// Nothing: no source has anything left unmatched (the sources were in step).
    case nothingMore
    /// Move the oldest unmatched event of each source that has one into the tuple.
    case moveNext
    /// End the observation: an ended source has nothing left.
    case end
  }

  /// One event of each source was taken into a tuple (every source had one).
  /// - Returns: what to do after delivering it.
  @inlinable @inline(__always)
  mutating func tupleDelivered() -> TupleAction {
    delivered &+= 1
    guard sourcesWithMore != 0 else {
      // Every source had exactly one: none has any left.
      emptySources = sources.count
      if aSourceEnded {
        hasEnded = true
        return .end
      }
      return .nothingMore
    }
    var ends = false
    for position in sources.indices {
      switch pending(position) {
      case 0:
        emptySources &+= 1
        if sources[position].ended { ends = true }
      case 1: sourcesWithMore &-= 1  // it had two
      default: break
      }
    }
    if ends {
      hasEnded = true
      return .end
    }
    return .moveNext
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
    sources[position].ended = true
    aSourceEnded = true
    if pending(position) == 0 { hasEnded = true }
    return hasEnded
  }
}
