/// The decisions of one `map(maxConcurrent:)` / `mapUnordered` / `tryMap` observation: the events
/// waiting for a worker, the window of events taken and not yet delivered, the results waiting
/// for an earlier one, the one worker that delivers, the end and the pressure.
///
/// The window: an event is taken only while fewer than `maxConcurrent` events are taken and not
/// delivered (running, or finished and waiting for an earlier one), so the results that wait are
/// at most `maxConcurrent` and never count toward `bufferLimit`; the events waiting for a worker
/// do, and `.backpressure` applies to them (`bufferLimit` up, `bufferLimit / 2` down).
///
/// A pure value (counts, queues, flags: no lock, no task): ``ConcurrentMapStage`` keeps it under
/// its lock with the workers' task handles, and performs the actions it returns after the lock
/// (start workers, raise or release the gate, deliver, the end). The senders' ``ConcurrentMapIntake``
/// is the stage's too: the inputs that need it take it as a parameter (the stage holds its lock,
/// inside its own); a worker's take, the input of every event, does only when ``take(downstreamPressured:)``
/// answers ``TakeStep/needsIntake``.
///
/// Races that happen are handled: an event, the end of registration or the upstream's end after
/// `dispose()`, and `dispose()` after the end was decided and before it was delivered. What
/// cannot happen stops with `preconditionFailure`: the upstream ending twice, a result with no transform running, a delivery step with no deliverer, a worker ending
/// when none lives.
@usableFromInline
struct ConcurrentMapStateMachine<Input, Output> {
  @usableFromInline
  enum State: Equatable {
    /// Taking events.
    case open
    /// The upstream has ended: the events received are taken and delivered, then the end.
    case upstreamEnded
    /// Over (the end is delivered, or disposed): nothing more is taken or delivered.
    case over
  }

  @usableFromInline let maxConcurrent: Int
  @usableFromInline let bufferLimit: Int
  /// Results in the order of their events (`map`, `tryMap`), else as they complete.
  @usableFromInline let ordered: Bool

  @usableFromInline var state = State.open
  /// Events received and not yet taken, oldest first (the next one taken is number `taken`).
  @usableFromInline var waiting = WorkQueue<Input>()
  /// Sequence numbers: of the next event taken and delivered.
  @usableFromInline var taken = 0
  @usableFromInline var delivered = 0
  /// Finished results not yet delivered: by `sequence % maxConcurrent` (ordered), or in order of
  /// completion (unordered).
  @usableFromInline var slots: [Output?]
  @usableFromInline var completed = WorkQueue<Output>()
  /// Live workers (of which `running` are running a transform), and the id of the next one.
  @usableFromInline var workers = 0
  @usableFromInline var running = 0
  @usableFromInline var nextWorkerID = 0
  /// A worker is delivering results (one at a time: it delivers what others finished too).
  @usableFromInline var isDelivering = false
  /// `registered` is due once this many results are delivered (the events of the registration).
  @usableFromInline var registeredAfter: Int?
  @usableFromInline var underPressure = false
  /// The intake's events (after `waiting`'s), known while under pressure (no fast path then).
  @usableFromInline var pressuredIntake = 0

  @inlinable
  init(maxConcurrent: Int, bufferLimit: Int, ordered: Bool) {
    self.maxConcurrent = maxConcurrent
    self.bufferLimit = bufferLimit
    self.ordered = ordered
    slots = Array(repeating: nil, count: ordered ? maxConcurrent : 0)
  }

  @inlinable
  var isOver: Bool { state == .over }

  /// Events that entered the machine (taken, or waiting in `waiting`); the next one's number.
  @inlinable
  var received: Int { taken + waiting.count }

  /// What the stage performs after the lock, in this order.
  @usableFromInline
  struct Actions: Equatable {
    /// Raise (`true`) or release (`false`) the stage's gate.
    @usableFromInline var pressure: Bool?
    /// Ids of the workers to start (one task each).
    @usableFromInline var start: Range<Int> = 0..<0
    /// Deliver the end (every result is delivered and the upstream has ended).
    @usableFromInline var end = false
    @inlinable init(pressure: Bool? = nil) { self.pressure = pressure }
  }

  /// Workers to start: one per event that can be taken now and that no idle worker (one about to
  /// take, or delivering) will take, up to `maxConcurrent` workers in all.
  @inlinable
  mutating func workersToStart(_ actions: inout Actions) {
    guard !isOver else { return }
    let takeable = Swift.min(waiting.count, maxConcurrent - (taken - delivered))
    let idle = workers - running
    let count = Swift.min(maxConcurrent - workers, takeable - idle)
    guard count > 0 else { return }
    actions.start = nextWorkerID..<nextWorkerID + count
    nextWorkerID += count
    workers += count
  }

  /// An event arrived that the intake did not take (the slow path): it goes behind the intake's
  /// events (into the intake when it holds some: they stay there, for a worker to take in one go);
  /// then the pressure, the workers to start, and the intake opened or closed for the next sender.
  /// Ignored after the upstream's end (disposed: sent before the upstream was).
  @inlinable
  mutating func received(_ input: Input, intake: inout ConcurrentMapIntake<Input>) -> Actions {
    var actions = Actions()
    guard state == .open else { return actions }
    if intake.events.isEmpty { waiting.push(input) } else { intake.events.push(input) }
    if !underPressure && waiting.count + intake.events.count >= bufferLimit {
      underPressure = true
      actions.pressure = true
    }
    pressuredIntake = intake.events.count
    workersToStart(&actions)
    open(&intake)
    return actions
  }

  /// The upstream's registration ended: `registered` is due after the results of the events so far
  /// (the intake's included). No action: the deliverer calls it in its place among the results.
  @inlinable
  mutating func registrationEnded(intake: inout ConcurrentMapIntake<Input>) {
    if !isOver { refill(&intake) }
    registeredAfter = received
  }

  /// The downstream released its pressure: the workers to start, or the end when it is due now.
  @inlinable
  mutating func resumed() -> Actions {
    var actions = Actions()
    workersToStart(&actions)
    actions.end = actions.start.isEmpty && endIsDue()
    return actions
  }

  /// Whether the end is due now (nothing waits, runs or is being delivered, and the upstream has
  /// ended); if so the stage is over from now on.
  @inlinable
  mutating func endIsDue() -> Bool {
    guard state == .upstreamEnded, waiting.isEmpty, taken == delivered, workers == 0, !isDelivering else {
      return false
    }
    state = .over
    return true
  }

  @usableFromInline
  enum DeliveryStep {
    case deliver(Output)
    case registered
    /// Nothing (more) for this worker to deliver: start these workers (the window moved), and go
    /// on with this step (the worker's next event, taken in the same critical section).
    case done(Actions, next: TakeStep)
  }

  /// A worker's transform returned `output` for the event `sequence`: stores the result; if nobody
  /// is delivering, this worker becomes the deliverer and gets its first delivery step, else it
  /// takes its next event (on the fast path: the stage resolves ``TakeStep/needsIntake``).
  @inlinable
  mutating func finished(_ output: Output, sequence: Int, downstreamPressured: Bool) -> DeliveryStep {
    guard running > 0 else {
      preconditionFailure("ConcurrentMapStateMachine.finished: a result, and no transform runs")
    }
    running -= 1
    if !isOver {
      if ordered { slots[sequence % maxConcurrent] = output } else { completed.push(output) }
      if !isDelivering {
        isDelivering = true
        return nextDelivery(downstreamPressured: downstreamPressured)
      }
    }
    return .done(Actions(), next: take(downstreamPressured: downstreamPressured))
  }

  /// The deliverer delivered its last step and asks for the next: the next ready result, or
  /// (nothing ready) the end of its delivering role and its next event.
  @inlinable
  mutating func nextDelivery(downstreamPressured: Bool) -> DeliveryStep {
    guard isDelivering else { preconditionFailure("ConcurrentMapStateMachine.nextDelivery: no worker is delivering") }
    guard !isOver else {
      isDelivering = false  // disposed meanwhile: the results are gone
      return .done(Actions(), next: take(downstreamPressured: downstreamPressured))
    }
    if let after = registeredAfter, after == delivered {
      registeredAfter = nil
      return .registered
    }
    if ordered {
      let index = delivered % maxConcurrent
      if let output = slots[index] {
        slots[index] = nil
        delivered += 1
        return .deliver(output)
      }
    } else if let output = completed.pop() {
      delivered += 1
      return .deliver(output)
    }
    isDelivering = false
    // Fewer than maxConcurrent workers live only with the intake closed and empty: nothing to move.
    var actions = Actions()
    workersToStart(&actions)
    // A worker to start (this one counted as idle, about to take): this one takes after starting
    // it. Taken first, its event would start only after the start's cost (a task, a thread to
    // wake: microseconds), finish after the later event the new worker takes, and stop that one
    // at the full window: a restart that causes the next.
    if !actions.start.isEmpty { return .done(actions, next: .again) }
    return .done(actions, next: take(downstreamPressured: downstreamPressured))
  }

  /// The upstream ended: releases the pressure (nothing more can come from the producers it held
  /// back), and the end when it is due at once (nothing waits or runs). Ignored once disposed.
  @inlinable
  mutating func upstreamEnded(intake: inout ConcurrentMapIntake<Input>) -> Actions {
    switch state {
    case .open: break
    case .upstreamEnded: preconditionFailure("ConcurrentMapStateMachine.upstreamEnded: the upstream ended twice")
    case .over: return Actions()  // disposed first
    }
    state = .upstreamEnded
    // The intake's events are the last ones; a later event goes to the machine, which ignores it.
    close(&intake)
    var actions = Actions(pressure: underPressure ? false : nil)
    underPressure = false
    actions.end = endIsDue()
    return actions
  }

  /// Disposed: forgets the waiting events (the intake's too, closing it) and results; returns
  /// whether the gate must be released, and how many events were waiting. (It may follow the
  /// end's decision, before the end was delivered: `dispose()` raced it.)
  @inlinable
  mutating func disposed(intake: inout ConcurrentMapIntake<Input>) -> (releases: Bool, waiting: Int) {
    let releases = underPressure
    underPressure = false
    state = .over
    let waitingCount = waiting.count + empty(&intake)
    waiting = WorkQueue()
    completed = WorkQueue()
    for index in slots.indices { slots[index] = nil }
    return (releases, waitingCount)
  }
}
