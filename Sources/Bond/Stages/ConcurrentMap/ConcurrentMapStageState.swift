/// What a ``ConcurrentMapStage`` keeps under its lock: its machine (the decisions: pure values)
/// and its workers' task handles (to cancel at `dispose()`), which are the stage's, not the
/// machine's.
@usableFromInline
struct ConcurrentMapStageState<Input, Output> {
  @usableFromInline var machine: ConcurrentMapStateMachine<Input, Output>
  /// The live workers' task handles, by worker id.
  @usableFromInline var tasks: [Int: Task<Void, Never>] = [:]
  /// Workers that ended before their handle was kept.
  @usableFromInline var endedWorkers: Set<Int> = []

  @inlinable
  init(machine: ConcurrentMapStateMachine<Input, Output>) {
    self.machine = machine
  }

  /// A worker ended: its handle, if kept already, goes; else it is remembered, so that it is not
  /// kept later.
  @inlinable
  mutating func workerEnded(_ worker: Int) {
    if tasks.removeValue(forKey: worker) == nil { endedWorkers.insert(worker) }
  }

  /// Keeps a worker's task handle; returns `true` when the stage is over already (cancel it).
  @inlinable
  mutating func started(_ task: Task<Void, Never>, worker: Int) -> Bool {
    if machine.isOver { return true }
    // A worker that already ended (it found nothing to take) has nothing to cancel.
    if endedWorkers.remove(worker) == nil { tasks[worker] = task }
    return false
  }

  /// Disposed: the handles of the workers to cancel.
  @inlinable
  mutating func disposed() -> [Task<Void, Never>] {
    defer { tasks = [:] }
    return Array(tasks.values)
  }
}

extension ConcurrentMapStage {
  /// A worker's next step after `step`, the machine's answer (the stage's lock held): asks again
  /// with the intake (its lock inside this one) when the machine needs it, and lets go of the
  /// worker's task handle when it ends.
  @inlinable
  func nextStepLocked(
    _ locked: inout ConcurrentMapStageState<Input, Output>,
    after step: Machine.TakeStep,
    worker: Int,
    downstreamPressured: Bool
  ) -> Machine.TakeStep {
    var step = step
    if case .needsIntake = step {
      step = intake.withLock { locked.machine.take(downstreamPressured: downstreamPressured, intake: &$0) }
    }
    if step.endsWorker { locked.workerEnded(worker) }
    return step
  }

  /// A worker asks for its next event.
  @inlinable
  func take(worker: Int) -> Machine.TakeStep {
    let pressured = downstreamPressured
    return state.withLock { locked in
      let step = locked.machine.take(downstreamPressured: pressured)
      return nextStepLocked(&locked, after: step, worker: worker, downstreamPressured: pressured)
    }
  }

  /// A delivery step of the machine (the stage's lock held): the worker's next step resolved when
  /// it is done delivering.
  @inlinable
  func deliveryLocked(
    _ locked: inout ConcurrentMapStageState<Input, Output>,
    _ delivery: Machine.DeliveryStep,
    worker: Int,
    downstreamPressured: Bool
  ) -> Machine.DeliveryStep {
    guard case .done(let actions, let next) = delivery else { return delivery }
    return .done(
      actions,
      next: nextStepLocked(&locked, after: next, worker: worker, downstreamPressured: downstreamPressured)
    )
  }
}
