// A worker's take in a concurrency-limited stage's decisions: the fast path, which needs only the
// machine, and every other case, which needs the senders' intake too (the stage holds its lock).

extension ConcurrentMapStateMachine {
  @usableFromInline
  enum TakeStep {
    /// Run the transform on this event.
    case event(sequence: Int, input: Input)
    /// Ask again with the intake (``take(downstreamPressured:intake:)``, its lock held): the fast
    /// path (an event waits, the window has room) does not apply.
    case needsIntake
    /// Nothing may be taken now: the worker ends.
    case stop
    /// The worker ends, and it was the last: every result is delivered and the upstream has
    /// ended, so it delivers the end.
    case end
    /// The worker ends because the stage downstream is under pressure: it asks to be woken on
    /// the release (and resumes the stage itself if the release came first).
    case pause
    /// Take again once the actions returned with this step are performed (workers started).
    case again
    /// Release the stage's gate (the waiting events went down to the low watermark), then take
    /// again.
    case release

    /// Whether the worker ends with this step.
    @inlinable
    var endsWorker: Bool {
      switch self {
      case .stop, .end, .pause: true
      case .event, .needsIntake, .again, .release: false
      }
    }
  }

  /// A worker asks for its next event, on the fast path: the next waiting event while the window
  /// has room, nobody downstream is under pressure and the take releases nothing; else
  /// ``TakeStep/needsIntake``. Changes nothing in that case.
  @inlinable
  mutating func take(downstreamPressured: Bool) -> TakeStep {
    guard !isOver, !waiting.isEmpty, !downstreamPressured, taken - delivered < maxConcurrent,
      !(underPressure && waiting.count + pressuredIntake - 1 <= bufferLimit / 2)
    else { return .needsIntake }
    return takeWaiting()
  }

  /// A worker asks for its next event, with the intake (its lock held): every case.
  @inlinable
  mutating func take(downstreamPressured: Bool, intake: inout ConcurrentMapIntake<Input>) -> TakeStep {
    // The intake's events, once the waiting ones are taken; an empty intake closes in the same
    // critical section, since this worker ends (no event can be left there unseen).
    if waiting.isEmpty && !isOver { refillOrClose(&intake) }
    if downstreamPressured && !isOver && !waiting.isEmpty {
      workerEnded(&intake)
      return .pause
    }
    guard !isOver, !waiting.isEmpty, taken - delivered < maxConcurrent else {
      workerEnded(&intake)
      return endIsDue() ? .end : .stop
    }
    if underPressure && waiting.count + pressuredIntake - 1 <= bufferLimit / 2 {
      // This take brings the waiting events down to bufferLimit / 2: the release first, then the
      // take. Waking the senders costs this worker microseconds; an event taken before would start
      // after them, finish after a later one another worker takes meanwhile, and stop that worker
      // at the full window. (Under pressure every event went through the machine: the intake is
      // empty; its room grows.)
      underPressure = false
      open(&intake)
      return .release
    }
    return takeWaiting()
  }

  /// Takes the first waiting event (one is waiting, and the window has room).
  @inlinable
  mutating func takeWaiting() -> TakeStep {
    let input = waiting.pop().unsafelyUnwrapped
    let sequence = taken
    taken += 1
    running += 1
    return .event(sequence: sequence, input: input)
  }

  /// A worker ends (no event to take, or the stage is over): fewer than `maxConcurrent` live, so
  /// the intake closes.
  @inlinable
  mutating func workerEnded(_ intake: inout ConcurrentMapIntake<Input>) {
    guard workers > 0 else { preconditionFailure("ConcurrentMapStateMachine.take: a worker ended, and none lives") }
    workers -= 1
    close(&intake)
  }
}
