#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The thread and hand-off of a ``DedicatedThreadScheduler``, shared by the scheduler and its thread
/// (which holds it, not the scheduler: releasing the scheduler stops the thread).
///
/// The hand-off is a lock-free stack of ``ScheduledTask``s linked through the tasks themselves:
/// a sender pushes with one compare-exchange on `head` (no lock, and no allocation for a scheduled
/// delivery's drain), and the thread polls `head` and takes the whole stack with one exchange,
/// then runs it oldest first. Only the thread takes, and it takes everything, so a push can never
/// meet a half-removed task (no ABA). When the strategy parks, the thread sets `parked` and checks
/// the stack under the mutex before it waits; a sender that finds `parked` set after its push
/// signals under the same mutex: no wake-up is lost. Timers live in a heap only the thread
/// touches. Tasks and timers run outside any lock.
/// - Note: thread-safe.
@usableFromInline
final class DedicatedThreadCore: @unchecked Sendable {
  // @unchecked: `timers` is touched only by the scheduler's thread; the rest is atomic, or the
  // pthread objects.

  let strategy: DedicatedThreadScheduler.WaitStrategy
  let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  /// The tasks pushed since the thread last took them, newest first; each holds a retain.
  let head = Atomic<Unmanaged<ScheduledTask>?>(nil)
  /// Set while the thread is about to wait, or waits, on `condition`.
  let parked = Atomic<Bool>(false)
  /// Set when the scheduler was released: the thread runs what is pushed, then exits.
  let stopping = Atomic<Bool>(false)
  /// The thread's timers by deadline (equal deadlines run in order).
  var timers = DeadlineHeap<CancellableAction>()

  init(strategy: DedicatedThreadScheduler.WaitStrategy) {
    self.strategy = strategy
    mutex.initialize(to: pthread_mutex_t())
    condition.initialize(to: pthread_cond_t())
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)  // timed waits on the timers' clock
    // Adaptive (see `initializeAdaptiveMutex`): a sender that wakes the thread while it is about to
    // wait (a few instructions) spins briefly instead of sleeping in the kernel at once.
    let results = (initializeAdaptiveMutex(mutex), pthread_cond_init(condition, &attributes))
    pthread_condattr_destroy(&attributes)
    precondition(results == (0, 0), "DedicatedThreadScheduler: pthread init failed: \(results)")
  }

  deinit {
    // The thread has exited; a task still linked (none is expected: a push needs the scheduler,
    // which stopped the thread when it was released) is released, never run.
    var task = head.exchange(nil, ordering: .acquiring)
    while let taken = task {
      task = taken.takeUnretainedValue().next
      taken.release()
    }
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  /// The monotonic clock in seconds.
  static func clock() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Starts the thread, which holds this core until it stops.
  func start() {
    let context = Unmanaged.passRetained(self).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
      &thread,
      nil,
      { context in
        let core = Unmanaged<DedicatedThreadCore>.fromOpaque(context!).takeRetainedValue()
        core.run()
        return nil
      },
      context
    )
    precondition(result == 0, "DedicatedThreadScheduler: pthread_create failed: \(result)")
    pthread_detach(thread)
  }

  /// Hands `task` to the thread, which calls `work(task)` after the tasks pushed before it, and
  /// wakes the thread if it is parked. When `task` already waits, nothing is added (its waiting run
  /// comes after this call). Lock-free: never waits for another thread (a retried compare-exchange
  /// when another sender pushed meanwhile).
  @usableFromInline
  func submit(_ task: ScheduledTask, work: @escaping @Sendable (ScheduledTask) -> Void) {
    // acquiring: pairs with the thread's releasing clear, so the writes below come after its reads
    // of `next` and `work` for the previous run.
    guard !task.isQueued.exchange(true, ordering: .acquiring) else { return }
    task.work = work
    let node = Unmanaged.passRetained(task)  // released by the thread after the run
    var top = head.load(ordering: .relaxed)
    while true {
      task.next = top
      // sequentiallyConsistent: releasing (the thread that takes the stack, acquiring, sees `next`,
      // `work` and what the sender did before, e.g. the event it buffered), and in one total order
      // with `park()`'s store of `parked` and its load of `head` (a Dekker pair: either this
      // sender sees `parked` below, or the parking thread sees this push).
      let (exchanged, current) = head.compareExchange(
        expected: top,
        desired: node,
        successOrdering: .sequentiallyConsistent,
        failureOrdering: .relaxed
      )
      if exchanged { break }
      top = current
    }
    // sequentiallyConsistent: the other half of the Dekker pair above.
    if parked.load(ordering: .sequentiallyConsistent) { wake() }
  }

  /// Signals the parked thread, under the mutex: it is then waiting, or has not checked `head` yet.
  func wake() {
    pthread_mutex_lock(mutex)
    pthread_cond_signal(condition)
    pthread_mutex_unlock(mutex)
  }

  /// The scheduler was released: the thread runs what is pushed, then exits.
  func stop() {
    // sequentiallyConsistent: a Dekker pair with `park()`, as in `submit`.
    stopping.store(true, ordering: .sequentiallyConsistent)
    if parked.load(ordering: .sequentiallyConsistent) { wake() }
  }

  /// The thread's loop: take the pushed tasks, run them, run the timers due; wait by the strategy.
  func run() {
    var taken: [Unmanaged<ScheduledTask>] = []
    var idlePolls = 0
    while true {
      // acquiring: pairs with `stop()`; every push came before the scheduler was released, so the
      // take below finds them all.
      let stops = stopping.load(ordering: .acquiring)
      if runPushed(&taken) {
        idlePolls = 0
      } else if stops {
        return  // timers not yet due are dropped with this core
      }
      if !timers.isEmpty, runDueTimers() { idlePolls = 0 }
      idlePolls += 1
      switch strategy {
      case .busySpin:
        continue
      case .yield:
        sched_yield()
      case .spinThenPark(let spins):
        if idlePolls > spins {
          park()
          idlePolls = 0
        }
      }
    }
  }

  /// Takes the stack, if any, and runs it oldest first; returns whether it took something.
  /// `taken` is the thread's reusable list of the tasks taken (newest first).
  func runPushed(_ taken: inout [Unmanaged<ScheduledTask>]) -> Bool {
    // relaxed: a poll; the line stays shared with the senders until one pushes.
    guard head.load(ordering: .relaxed) != nil else { return false }
    // acquiring: pairs with the pushes' releasing compare-exchanges (the last one, and through the
    // release sequence of read-modify-writes on `head`, every earlier one).
    var task = head.exchange(nil, ordering: .acquiring)
    while let node = task {
      taken.append(node)
      task = node.takeUnretainedValue().next
    }
    while let node = taken.popLast() {
      let task = node.takeRetainedValue()  // the push's retain, released after the run
      // releasing: `next` and `work` are read; a push from now on links the task again.
      let work = task.work
      task.isQueued.store(false, ordering: .releasing)
      task.perform(work, on: self)
    }
    return true
  }

  /// Sleeps until a task is pushed, the scheduler stops, or the next timer is due.
  func park() {
    let deadline = timers.firstDue
    pthread_mutex_lock(mutex)
    // sequentiallyConsistent: the Dekker pair with `submit` and `stop`: a sender that pushes after
    // this load sees `parked` set and signals, under the mutex, so after the wait below began.
    parked.store(true, ordering: .sequentiallyConsistent)
    if head.load(ordering: .sequentiallyConsistent) == nil, !stopping.load(ordering: .sequentiallyConsistent) {
      if let deadline {
        var time = timespec()
        time.tv_sec = Int(deadline.rounded(.down))
        time.tv_nsec = Int((deadline - deadline.rounded(.down)) * 1e9)
        pthread_cond_timedwait(condition, mutex, &time)
      } else {
        pthread_cond_wait(condition, mutex)
      }
    }
    // relaxed: only this thread reads it as its own; a sender that still sees `true` signals
    // for nothing.
    parked.store(false, ordering: .relaxed)
    pthread_mutex_unlock(mutex)
  }

  /// Runs the timers that are due (outside any lock: they are user code); returns whether any ran.
  func runDueTimers() -> Bool {
    let now = Self.clock()
    var ran = false
    while let (_, action) = timers.popFirst(dueAtOrBefore: now) {
      action.run()
      ran = true
    }
    return ran
  }
}
