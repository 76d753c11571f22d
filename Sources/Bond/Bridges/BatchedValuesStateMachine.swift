/// The decisions of one ``BatchedValues`` or ``Values`` buffer: the events waiting, the consumer
/// waiting for them, the pressure. A pure value, kept in ``BatchedValuesBuffer``'s lock; the continuations it
/// hands back are resumed, the gate raised or released, and dropped events released, after it.
///
/// One method per input: the producer's event (``received(_:)``) and end (``finished()``), the
/// consumer's take (``take()``, ``takeOne()``), its wait (``suspend(_:)``) and its end
/// (``terminated()``). The races are handled: an event or the end after the consumer went (the
/// observation is disposed after the lock) is ignored, a second end of the consumer (its
/// cancellation and its next call) does nothing, and a wait that an event or the end overtook
/// resumes at once. An event or a second end after the producer's end cannot come (a producer
/// delivers nothing after `finished`): they stop with `preconditionFailure`. Two tasks iterating
/// one sequence at once is the user's mistake: it stops naming the user's call.
@usableFromInline
struct BatchedValuesStateMachine<Event> {
  @usableFromInline
  enum State {
    /// Observing; the consumer's continuation while it waits for an event.
    case active(waiting: UnsafeContinuation<Void, Never>?)
    /// The producer ended: the events left are returned, then `nil`.
    case finished
    /// The consumer is gone (cancelled, or the sequence released): nothing more is kept.
    case terminated
  }

  /// What the caller does after an input, outside the lock: any of the three.
  @usableFromInline
  struct Action {
    /// Resume the waiting consumer.
    @usableFromInline var resume: UnsafeContinuation<Void, Never>?
    /// Raise (`true`) or release (`false`) the gate.
    @usableFromInline var pressure: Bool?
    /// Events dropped or let go, released outside the lock.
    @usableFromInline var dropped: [Event] = []

    @inlinable
    init(resume: UnsafeContinuation<Void, Never>? = nil, pressure: Bool? = nil) {
      (self.resume, self.pressure) = (resume, pressure)
    }
  }

  /// What the consumer's `next()` does: `Taken` is an array of events (``BatchedValues``) or one
  /// event (``Values``).
  @usableFromInline
  enum Take<Taken> {
    /// Return these events; release the gate first when `release`.
    case events(Taken, release: Bool)
    /// Return `nil`.
    case end
    /// Wait for an event (``suspend(_:)``).
    case wait
  }

  @usableFromInline var state = State.active(waiting: nil)
  /// `events[head...]` are waiting.
  @usableFromInline var events: [Event] = []
  @usableFromInline var head = 0
  @usableFromInline var isPressured = false
  @usableFromInline let maxCount: Int
  @usableFromInline let bufferLimit: Int
  @usableFromInline let policy: DeliveryOverflowPolicy
  /// The call that made the buffer, as a user spells it, for the precondition messages.
  @usableFromInline let call: StaticString

  @inlinable
  init(maxCount: Int, bufferLimit: Int, policy: DeliveryOverflowPolicy, call: StaticString) {
    (self.maxCount, self.bufferLimit, self.policy, self.call) = (maxCount, bufferLimit, policy, call)
  }

  /// The events waiting.
  @inlinable
  var count: Int { events.count - head }

  /// An event of the producer.
  @inlinable
  mutating func received(_ event: Event) -> Action {
    let waiting: UnsafeContinuation<Void, Never>?
    switch state {
    case .active(let continuation): waiting = continuation
    case .terminated: return Action()  // sent before the observation was disposed: released by the caller
    case .finished: preconditionFailure("BatchedValuesStateMachine.received: an event after the producer's end")
    }
    var action = Action()
    if count >= bufferLimit {
      switch policy {
      case .dropNewest:
        return action  // the event is released by the caller, after the lock
      case .dropOldest:
        action.dropped = [events[head]]
        head += 1
      case .backpressure:
        break  // never drops; under pressure already (below)
      }
    }
    events.append(event)
    if policy == .backpressure, !isPressured, count >= bufferLimit {
      isPressured = true
      action.pressure = true
    }
    if let waiting {
      state = .active(waiting: nil)
      action.resume = waiting
    }
    return action
  }

  /// The consumer asks for events: at most `maxCount` of them, in one array.
  @inlinable
  mutating func take() -> Take<[Event]> {
    guard count > 0 else { return takeNone() }  // none after the end of the consumer: it let them go
    let taken: [Event]
    if head == 0 && events.count <= maxCount {
      taken = events  // the whole buffer, without a copy
      events = []
    } else {
      let end = head + Swift.min(count, maxCount)
      taken = Array(events[head..<end])
      head = end
      compact()
    }
    return .events(taken, release: releaseAfterTake())
  }

  /// The consumer asks for one event.
  @inlinable
  mutating func takeOne() -> Take<Event> {
    guard count > 0 else { return takeNone() }
    let taken = events[head]
    head += 1
    compact()
    return .events(taken, release: releaseAfterTake())
  }

  /// Drops the taken events from the array once they are half of it (amortized constant time per
  /// event: each move is paid for by the takes before it), or at once when it is empty.
  @inlinable
  mutating func compact() {
    if head == events.count {
      events.removeAll(keepingCapacity: true)
      head = 0
    } else if head * 2 >= events.count {
      events.removeFirst(head)
      head = 0
    }
  }

  /// Whether this take brings the waiting events down to `bufferLimit / 2` under pressure: the
  /// caller releases the gate.
  @inlinable
  mutating func releaseAfterTake() -> Bool {
    guard isPressured, count <= bufferLimit / 2 else { return false }
    isPressured = false
    return true
  }

  /// Nothing is waiting: wait, or end.
  @inlinable
  func takeNone<Taken>() -> Take<Taken> {
    switch state {
    case .active(let waiting):
      guard waiting == nil else {
        preconditionFailure("\(call): two tasks iterate one sequence at once")
      }
      return .wait
    case .finished, .terminated:
      return .end
    }
  }

  /// The consumer waits: keeps `continuation` and returns `false`, or returns `true` (resume it at
  /// once) when an event or the end came meanwhile.
  @inlinable
  mutating func suspend(_ continuation: UnsafeContinuation<Void, Never>) -> Bool {
    guard count == 0, case .active(nil) = state else { return true }
    state = .active(waiting: continuation)
    return false
  }

  /// The producer ended: the consumer takes what is left, then `nil`.
  @inlinable
  mutating func finished() -> Action {
    let waiting: UnsafeContinuation<Void, Never>?
    switch state {
    case .active(let continuation): waiting = continuation
    case .terminated: return Action()  // the consumer went first: nothing is kept
    case .finished: preconditionFailure("BatchedValuesStateMachine.finished: the producer ended twice")
    }
    state = .finished
    return Action(resume: waiting, pressure: releasePressure())
  }

  /// The consumer is gone: everything is let go.
  @inlinable
  mutating func terminated() -> Action {
    var action = Action(pressure: releasePressure())
    if case .active(let waiting) = state { action.resume = waiting }
    state = .terminated
    action.dropped = events
    events = []
    head = 0
    return action
  }

  @inlinable
  mutating func releasePressure() -> Bool? {
    guard isPressured else { return nil }
    isPressured = false
    return false
  }
}
