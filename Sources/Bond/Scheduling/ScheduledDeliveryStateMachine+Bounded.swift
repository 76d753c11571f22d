// The bounded mode of a scheduled delivery's decisions: the drain takes one event at a time (or,
// for a `.backpressure` buffer with nobody downstream to pause for, a chunk), so that the events
// still waiting stay in the buffer, where the overflow policy applies to them.

extension ScheduledDeliveryStateMachine {
  @usableFromInline
  enum SingleStep {
    /// Deliver the event; with `releases`, release the stage's gate first (the low watermark).
    case deliver(Observer, Event, releases: Bool)
    /// Array mode, bounded (``Batches`` with a buffer limit): deliver these events as one array.
    case deliverArray(ArrayObserver, [Event], releases: Bool)
    /// `.backpressure`: deliver the events moved into the drain's chunk, one by one (they never
    /// drop, so taking several per lock changes nothing but the cost); with `releases`, release
    /// the stage's gate first.
    case deliverChunk(Observer, releases: Bool)
    case registered(Registered)
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
    guard let observer else { return .exit(.stop) }
    if registeredAfter == 0, let callback = registered {
      registeredAfter = nil
      registered = nil
      return .registered(callback)
    }
    guard !buffer.isEmpty else {
      if drainEnds() { return .exit(.finish(ended())) }
      return .exit(.stop)
    }
    if !mayContinue { return .exit(.reschedule) }
    if let arrayObserver, maxArrayCount > 0 {
      // An array never spans the registration point: `registered` comes between two arrays.
      let count = Swift.min(maxArrayCount, buffer.count, registeredAfter ?? .max)
      var array: [Event] = []
      array.reserveCapacity(count)
      for _ in 0..<count { array.append(buffer.pop().unsafelyUnwrapped) }
      took(count)
      if let after = registeredAfter { registeredAfter = after - count }
      return .deliverArray(arrayObserver, array, releases: releasesPressure())
    }
    if chunkLimit > 1 && overflowPolicy == .backpressure {
      var count = Swift.min(chunkLimit, buffer.count, registeredAfter ?? .max)
      if underPressure { count = Swift.min(count, buffer.count - bufferLimit / 2 - 1) }
      if count > 1 {
        for _ in 0..<count { chunk.push(buffer.pop().unsafelyUnwrapped) }
        took(count)
        inHand = count
        if let after = registeredAfter { registeredAfter = after - count }
        return .deliverChunk(observer, releases: releasesPressure())
      }
    }
    if let after = registeredAfter { registeredAfter = after - 1 }
    let event = buffer.pop().unsafelyUnwrapped
    took(1)
    return .deliver(observer, event, releases: releasesPressure())
  }
}
