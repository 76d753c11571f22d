/// The decisions of one `zip` observation: how many unmatched events each source has buffered,
/// which sources have ended, and which have finished registering. One method per input (an event
/// queued, a tuple taken, a registration, an end), each returning an ``Action``. After the end an
/// event or a source's end can still arrive (queued before the observations were disposed) and is
/// ignored; a source that ends twice, or more registrations than sources, are impossible
/// (`preconditionFailure`).
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
  @usableFromInline
  enum State {
    /// Matching the sources' events into tuples.
    case zipping
    /// Ended: nothing more is decided.
    case ended
  }

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
  @usableFromInline var state = State.zipping

  /// Whether the end was reported.
  @inlinable
  var hasEnded: Bool {
    if case .ended = state { return true }
    return false
  }

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

  /// A source's event was buffered: `takeTuple` when a tuple is complete (take one event of each
  /// source, call ``tupleDelivered()`` and deliver it), else `ignore`.
  @inlinable
  mutating func eventQueued(position: Int) -> Action {
    guard case .zipping = state else { return .ignore }  // queued before the end disposed the sources
    // Wrapping: counts of events cannot reach Int.max.
    let pending = pending(position)
    if pending == 0 {
      emptySources &-= 1
    } else if pending == 1 {
      sourcesWithMore &+= 1
    }
    sources[position].queued &+= 1
    return emptySources == 0 ? .takeTuple : .ignore
  }

  /// What the sink must do after one input.
  @usableFromInline
  enum Action {
    /// Take one event of each source into a tuple (``tupleDelivered()``) and deliver it.
    case takeTuple
    /// Call the observer's `registered`.
    case callRegistered
    /// Nothing: no source has anything left unmatched (the sources were in step).
    case nothingMore
    /// Move the oldest unmatched event of each source that has one into the tuple.
    case moveNext
    /// End the observation: an ended source has nothing left.
    case end
    /// Nothing.
    case ignore
  }

  /// One event of each source was taken into a tuple (every source had one).
  /// - Returns: what to do after delivering it.
  @inlinable @inline(__always)
  mutating func tupleDelivered() -> Action {
    delivered &+= 1
    guard sourcesWithMore != 0 else {
      // Every source had exactly one: none has any left.
      emptySources = sources.count
      if aSourceEnded {
        state = .ended
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
      state = .ended
      return .end
    }
    return .moveNext
  }

  /// A source has finished registering: `registered` is due after the last one.
  @inlinable
  mutating func sourceRegistered() -> Action {
    guard unregisteredSources > 0 else {
      preconditionFailure("ZipStateMachine.sourceRegistered: more registrations than sources")
    }
    unregisteredSources -= 1
    return unregisteredSources == 0 ? .callRegistered : .ignore
  }

  /// A source ended (after all its events were buffered): the end when it has nothing left
  /// unmatched.
  @inlinable
  mutating func sourceEnded(position: Int) -> Action {
    guard case .zipping = state else { return .ignore }  // queued before the end disposed the sources
    if sources[position].ended { preconditionFailure("ZipStateMachine.sourceEnded: source \(position) ended twice") }
    sources[position].ended = true
    aSourceEnded = true
    guard pending(position) == 0 else { return .ignore }
    state = .ended
    return .end
  }
}
