// The bounded mode of a scheduled delivery's decisions: the drain takes one event at a time (or,
// for a `.backpressure` buffer with nobody downstream to pause for, a chunk), so that the events
// still waiting stay in the buffer, where the overflow policy applies to them.

extension ScheduledDeliveryStateMachine {
  @usableFromInline
  enum SingleStep {
    /// Deliver the event to the observer; with `releases`, release the stage's gate first (the low
    /// watermark).
    case deliver(Event, releases: Bool)
    /// Array mode, bounded (``Batches`` with a buffer limit): deliver these events as one array to
    /// the observer of arrays.
    case deliverArray([Event], releases: Bool)
    /// `.backpressure`: deliver the events moved into the drain's chunk, one by one (they never
    /// drop, so taking several per lock changes nothing but the cost); with `releases`, release
    /// the stage's gate first.
    case deliverChunk(releases: Bool)
    /// Call `registered`: the owner takes it out with this step (it is never due again).
    case registered
    /// The drain ends.
    case exit(DrainExit)
  }

  /// Bounded mode: hands the drain one event at a time, so that the events still waiting stay in
  /// the buffer, where the overflow policy applies to them.
  @inlinable
  mutating func nextEvent(mayContinue: Bool) -> SingleStep {
    var none = WorkQueue<Event>()
    return nextEvent(mayContinue: mayContinue, chunk: &none, chunkLimit: 1)
  }

  /// ``nextEvent(mayContinue:)`` that may move up to `chunkLimit` events of a `.backpressure`
  /// buffer into `chunk` in one step. A chunk stops one event short of the low watermark, so the
  /// release still comes with the event that reaches it (taken alone), as one by one.
  @inlinable
  mutating func nextEvent(mayContinue: Bool, chunk: inout WorkQueue<Event>, chunkLimit: Int) -> SingleStep {
    inHand = 0  // the drain comes back once it has delivered its chunk
    // Disposed (or over): the observer is gone.
    guard !isDisposed else { return .exit(.stop) }
    if case .due(after: 0) = registration {
      registration = .absent
      return .registered
    }
    guard !buffer.isEmpty else {
      if drainEnds() { return .exit(.finish(ended())) }
      return .exit(.stop)
    }
    if !mayContinue { return .exit(.reschedule) }
    if maxArrayCount > 0 {
      // An array never spans the registration point: `registered` comes between two arrays.
      let count = Swift.min(maxArrayCount, buffer.count, registration.offset)
      var array: [Event] = []
      array.reserveCapacity(count)
      for _ in 0..<count { array.append(buffer.pop().unsafelyUnwrapped) }
      took(count)
      registration.took(count)
      return .deliverArray(array, releases: releasesPressure())
    }
    if chunkLimit > 1 && overflowPolicy == .backpressure {
      var count = Swift.min(chunkLimit, buffer.count, registration.offset)
      if underPressure { count = Swift.min(count, buffer.count - bufferLimit / 2 - 1) }
      if count > 1 {
        for _ in 0..<count { chunk.push(buffer.pop().unsafelyUnwrapped) }
        took(count)
        inHand = count
        registration.took(count)
        return .deliverChunk(releases: releasesPressure())
      }
    }
    registration.took(1)
    let event = buffer.pop().unsafelyUnwrapped
    took(1)
    return .deliver(event, releases: releasesPressure())
  }
}
