/// The decisions of one `map(maxConcurrent:)` / `mapUnordered` / `tryMap` observation: the events
/// waiting for a worker, the window of events taken and not yet delivered, the results waiting
/// for an earlier one, the one thread that delivers, the end and the pressure.
///
/// The window: an event is taken only while fewer than `maxConcurrent` events are taken and not
/// delivered (running, or finished and waiting for an earlier one), so the results that wait are
/// at most `maxConcurrent` and never count toward `bufferLimit`; the events waiting for a worker
/// do, and `.backpressure` applies to them (`bufferLimit` up, `bufferLimit / 2` down).
///
/// The owner keeps it in a `LockedState` and performs the actions it returns after the lock (start
/// workers, raise or release the gate, deliver, the end). It holds the senders'
/// ``ConcurrentMapIntake`` (own lock, taken inside the stage's; `ConcurrentMapIntake.swift`).
@usableFromInline
struct ConcurrentMapStateMachine<Input, Output> {
  @usableFromInline let maxConcurrent: Int
  @usableFromInline let bufferLimit: Int
  /// Results in the order of their events (`map`, `tryMap`), else as they complete.
  @usableFromInline let ordered: Bool

  /// Events received and not yet taken, oldest first (the next one taken is number `taken`).
  @usableFromInline var waiting = WorkQueue<Input>()
  /// The senders' events not yet moved into `waiting`.
  @usableFromInline let intake: LockedState<ConcurrentMapIntake<Input>>
  /// Sequence numbers: of the next event taken and delivered.
  @usableFromInline var taken = 0
  @usableFromInline var delivered = 0
  /// Finished results not yet delivered: by `sequence % maxConcurrent` (ordered), or in order of
  /// completion (unordered).
  @usableFromInline var slots: [Output?]
  @usableFromInline var completed = WorkQueue<Output>()
  /// Live worker tasks (of which `running` are running a transform), and their handles (to cancel
  /// them at `dispose()`).
  @usableFromInline var workers = 0
  @usableFromInline var running = 0
  @usableFromInline var tasks: [Int: Task<Void, Never>] = [:]
  /// Workers that ended before their handle was kept.
  @usableFromInline var endedWorkers: Set<Int> = []
  @usableFromInline var nextWorkerID = 0
  /// A thread is delivering results (one at a time: it delivers what others finished too).
  @usableFromInline var isDelivering = false
  /// `registered` is due once this many results are delivered (the events of the registration).
  @usableFromInline var registeredAfter: Int?
  @usableFromInline var upstreamEnded = false
  @usableFromInline var isOver = false
  @usableFromInline var underPressure = false
  /// The intake's events (after `waiting`'s), known while under pressure (no fast path then).
  @usableFromInline var pressuredIntake = 0

  @inlinable
  init(maxConcurrent: Int, bufferLimit: Int, ordered: Bool, intake: LockedState<ConcurrentMapIntake<Input>>) {
    self.maxConcurrent = maxConcurrent
    self.bufferLimit = bufferLimit
    self.ordered = ordered
    self.intake = intake
    slots = Array(repeating: nil, count: ordered ? maxConcurrent : 0)
  }

  /// Events that entered the machine (taken, or waiting in `waiting`); the next one's number.
  @inlinable
  var received: Int { taken + waiting.count }

  /// What the caller performs after the lock.
  @usableFromInline
  struct Actions {
    /// Worker ids to start (one task each).
    @usableFromInline var start: [Int] = []
    /// Raise (`true`) or release (`false`) the stage's gate.
    @usableFromInline var pressure: Bool?
    @inlinable init() {}
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
    for _ in 0..<count {
      actions.start.append(nextWorkerID)
      nextWorkerID += 1
    }
    workers += count
  }

  /// An event arrived that the intake did not take (the slow path): it goes behind the intake's
  /// events (into the intake when it holds some: they stay there, for a worker to take in one go);
  /// then the pressure, the workers to start, and the intake opened or closed for the next sender
  /// (one critical section of the intake's lock inside the stage's).
  @inlinable
  mutating func eventReceived(_ input: Input) -> Actions {
    var actions = Actions()
    guard !isOver, !upstreamEnded else { return actions }
    intake.withLock { box in
      if box.events.isEmpty { waiting.push(input) } else { box.events.push(input) }
      if !underPressure && waiting.count + box.events.count >= bufferLimit {
        underPressure = true
        actions.pressure = true
      }
      pressuredIntake = box.events.count
      workersToStart(&actions)
      openLocked(&box)
    }
    return actions
  }

  /// The upstream's registration ended: `registered` is due after the results of the events so far
  /// (the intake's included).
  @inlinable
  mutating func registrationEnded() {
    if !isOver { refill() }
    registeredAfter = received
  }

  @usableFromInline
  enum TakeStep {
    /// Run the transform on this event.
    case event(sequence: Int, input: Input)
    /// Nothing may be taken now: the worker ends.
    case stop
    /// The worker ends, and it was the last: every result is delivered and the upstream has
    /// ended, so it delivers the end.
    case end
    /// The worker ends because the stage downstream is under pressure: it asks to be woken on
    /// the release (and resumes the stage itself if the release came first).
    case pause
    /// Take again once the actions returned with this step are performed (workers started, the
    /// gate released).
    case again
  }

  /// A worker asks for its next event; with `releases`, the gate must be released (the waiting
  /// events went down to the low watermark).
  @inlinable
  mutating func take(worker: Int, downstreamPressured: Bool = false, releases: inout Bool) -> TakeStep {
    // The intake's events, once the waiting ones are taken; an empty intake closes in the same
    // critical section, since this worker ends (no event can be left there unseen).
    if waiting.isEmpty && !isOver { refillOrClose() }
    if downstreamPressured && !isOver && !waiting.isEmpty {
      workerEnded(worker)
      return .pause
    }
    guard !isOver, !waiting.isEmpty, taken - delivered < maxConcurrent else {
      workerEnded(worker)
      return endIsDue() ? .end : .stop
    }
    if underPressure && waiting.count + pressuredIntake - 1 <= bufferLimit / 2 {
      // This take brings the waiting events down to bufferLimit / 2: the release first, then the
      // take (`.again`). Waking the senders costs this worker microseconds; an event taken before
      // would start after them, finish after a later one another worker takes meanwhile, and
      // stop that worker at the full window. (Under pressure every event went through the
      // machine: the intake is empty; its room grows.)
      underPressure = false
      releases = true
      intake.withLock { openLocked(&$0) }
      return .again
    }
    let input = waiting.pop().unsafelyUnwrapped
    let sequence = taken
    taken += 1
    running += 1
    return .event(sequence: sequence, input: input)
  }

  /// After the downstream's release: the workers to start, and whether the end is due now.
  @inlinable
  mutating func resumed() -> (actions: Actions, end: Bool) {
    var actions = Actions()
    workersToStart(&actions)
    return (actions, actions.start.isEmpty && endIsDue())
  }

  /// Whether the end is due now (nothing waits, runs or is being delivered, and the upstream has
  /// ended); if so the stage is over from now on.
  @inlinable
  mutating func endIsDue() -> Bool {
    guard !isOver, upstreamEnded, waiting.isEmpty, taken == delivered, workers == 0, !isDelivering else {
      return false
    }
    isOver = true
    return true
  }

  /// A worker ends (no event to take, or the stage is over).
  @inlinable
  mutating func workerEnded(_ worker: Int) {
    workers -= 1
    closeIntake()
    // Its handle, if kept already; else remembered, so that it is not kept later.
    if tasks.removeValue(forKey: worker) == nil { endedWorkers.insert(worker) }
  }

  /// Keeps a worker's task handle; returns `true` when the stage is over already (cancel it).
  @inlinable
  mutating func started(_ task: Task<Void, Never>, worker: Int) -> Bool {
    if isOver { return true }
    // A worker that already ended (it found nothing to take) has nothing to cancel.
    if endedWorkers.remove(worker) == nil { tasks[worker] = task }
    return false
  }

  @usableFromInline
  enum DeliveryStep {
    case deliver(Output)
    case registered
    /// Nothing (more) for this worker to deliver: start these workers (the window moved), and go
    /// on with this step (the worker's next event, taken in the same critical section).
    case done(Actions, next: TakeStep)
  }

  /// A worker finished the event `sequence`: stores the result; if nobody is delivering, this
  /// worker becomes the deliverer and gets its first delivery step, else it takes its next event
  /// (one critical section either way).
  @inlinable
  mutating func finished(
    _ output: Output,
    sequence: Int,
    worker: Int,
    downstreamPressured: Bool,
    releases: inout Bool
  ) -> DeliveryStep {
    running -= 1
    if !isOver {
      if ordered { slots[sequence % maxConcurrent] = output } else { completed.push(output) }
      if !isDelivering {
        isDelivering = true
        return nextDelivery(worker: worker, downstreamPressured: downstreamPressured, releases: &releases)
      }
    }
    return .done(Actions(), next: take(worker: worker, downstreamPressured: downstreamPressured, releases: &releases))
  }

  /// The deliverer's next step: the next ready result, or (nothing ready) the end of its
  /// delivering role and its next event.
  @inlinable
  mutating func nextDelivery(worker: Int, downstreamPressured: Bool, releases: inout Bool) -> DeliveryStep {
    guard !isOver else {
      isDelivering = false
      return .done(Actions(), next: take(worker: worker, downstreamPressured: downstreamPressured, releases: &releases))
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
    return .done(actions, next: take(worker: worker, downstreamPressured: downstreamPressured, releases: &releases))
  }

  /// The upstream ended: returns whether the end is due at once (nothing waits or runs).
  @inlinable
  mutating func endReceived(releases: inout Bool) -> Bool {
    guard !isOver, !upstreamEnded else { return false }
    upstreamEnded = true
    // The intake's events are the last ones; a later event goes to the machine, which ignores it.
    closeIntake()
    // Nothing more can come from the producers it held back.
    if underPressure {
      underPressure = false
      releases = true
    }
    return endIsDue()
  }

  /// Disposed: forgets the waiting events (the intake's too, closing it) and results; returns the
  /// tasks to cancel, whether the gate must be released, and how many events were waiting.
  @inlinable
  mutating func disposed() -> (tasks: [Task<Void, Never>], releases: Bool, waiting: Int) {
    let releases = underPressure
    underPressure = false
    isOver = true
    let waitingCount = waiting.count + emptyIntake()
    waiting = WorkQueue()
    completed = WorkQueue()
    for index in slots.indices { slots[index] = nil }
    let running = Array(tasks.values)
    tasks = [:]
    return (running, releases, waitingCount)
  }
}
