import Synchronization

/// Something a ``DedicatedThreadScheduler``'s thread runs, linked into its hand-off without an
/// node of its own: a scheduled delivery (``ScheduledDelivery``, whose drain is its task, so that
/// scheduling a drain links the delivery itself), an action, a timer.
///
/// A task waits in at most one hand-off at a time: `isQueued` is set by the push that links it
/// and cleared by the thread once it has read `next` and `work`, just before it runs the task. A
/// push that finds it set adds nothing: the waiting run has not started, so it comes after that
/// push and serves it too. While it waits, the hand-off holds it (a retain from the push, released
/// by the thread after the run).
/// - Note: `next` and `work` are written only by the push that set `isQueued`, before it publishes
///   the task, and read only by the thread after it has taken it; `isQueued` orders the rest.
@usableFromInline
class ScheduledTask: @unchecked Sendable {
  // @unchecked: `next` and `work` are handed from the pushing thread to the scheduler's thread
  // through the hand-off's atomics (see the note above).

  /// The task pushed before this one (the hand-off is a stack, newest first).
  @usableFromInline var next: Unmanaged<ScheduledTask>?
  /// Set while the task waits in a hand-off.
  @usableFromInline let isQueued = Atomic<Bool>(false)
  /// What the thread runs, given the task itself (so that it captures nothing); set by each push.
  @usableFromInline var work: @Sendable (ScheduledTask) -> Void = { _ in }

  @usableFromInline
  init() {}

  /// Runs the task on the scheduler's thread: `work` (read before `isQueued` was cleared: a new
  /// push may set it again meanwhile), or what a subclass does; `core` is that thread's (a timer
  /// joins its heap).
  func perform(_ work: (ScheduledTask) -> Void, on core: DedicatedThreadCore) {
    work(self)
  }
}

/// An action of ``DedicatedThreadScheduler/schedule(_:)``.
final class ActionTask: ScheduledTask, @unchecked Sendable {
  let action: @Sendable () -> Void

  init(_ action: @escaping @Sendable () -> Void) {
    self.action = action
  }

  override func perform(_ work: (ScheduledTask) -> Void, on core: DedicatedThreadCore) {
    action()
  }
}

/// A timer of ``DedicatedThreadScheduler/schedule(after:_:)``: it joins the thread's heap, which
/// runs it at `deadline` unless it was cancelled.
final class TimerTask: ScheduledTask, @unchecked Sendable {
  let deadline: Double
  let action: CancellableAction

  init(deadline: Double, _ action: CancellableAction) {
    self.deadline = deadline
    self.action = action
  }

  override func perform(_ work: (ScheduledTask) -> Void, on core: DedicatedThreadCore) {
    core.timers.insert(action, due: deadline)
  }
}
