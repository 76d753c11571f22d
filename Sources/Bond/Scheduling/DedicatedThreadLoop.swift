#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The thread and queue of a ``DedicatedThreadScheduler``, shared by the scheduler and its thread
/// (which holds it, not the scheduler: releasing the scheduler stops the thread).
///
/// Senders push under the mutex and raise `hasWork`; the thread polls `hasWork` without the lock
/// and swaps the whole queue out in one lock when it is set, a lock it only tries (never sleeping on
/// it while a sender pushes: it polls again). When the strategy parks, the thread
/// sets `parked` and waits on the condition under the same mutex after checking the queue, and a
/// sender that finds `parked` set signals it: no wake-up is lost. Timers live in a heap only the
/// thread touches. Actions and timers run outside the lock.
///
/// The thread also polls the stages registered with it (``DedicatedThreadPoller``: `deliverOn`'s
/// rings), which hand it events with no lock and no job. Before it parks, it raises
/// `parkedForPollers` and polls them once more; a stage's producer, after publishing an item,
/// checks that flag (a sequentially consistent fence between: either the thread's last poll sees
/// the item, or the producer sees the flag) and then sets `wakeSignal` under the mutex and signals.
/// - Note: thread-safe.
final class DedicatedThreadLoop: @unchecked Sendable {
  // @unchecked: `queue`, `parked`, `wakeSignal` and `stopping` are touched only under `mutex`;
  // `timers` and `pollers` only by the scheduler's thread.

  /// What a sender hands to the thread.
  enum Job {
    case now(@Sendable () -> Void)
    case timer(deadline: Double, CancellableAction)
    /// A stage the thread polls from now on, until it reports itself finished.
    case poll(DedicatedThreadPoller)
  }

  let strategy: DedicatedThreadScheduler.WaitStrategy
  let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  /// Set (under the mutex) when the queue holds work; polled by the thread without the lock.
  let hasWork = Atomic<Bool>(false)
  var queue = WorkQueue<Job>()
  var parked = false
  /// A stage's producer asked the thread not to park (see the type's documentation).
  var wakeSignal = false
  /// Raised by the thread from before its last poll of the stages until it is awake again.
  let parkedForPollers = Atomic<Bool>(false)
  /// The stages the thread polls, in the order they registered.
  var pollers: [DedicatedThreadPoller] = []
  var stopping = false
  /// The thread's timers by deadline (equal deadlines run in order).
  var timers = DeadlineHeap<CancellableAction>()

  init(strategy: DedicatedThreadScheduler.WaitStrategy) {
    self.strategy = strategy
    mutex.initialize(to: pthread_mutex_t())
    condition.initialize(to: pthread_cond_t())
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)  // timed waits on the timers' clock
    // Adaptive (see `initializeAdaptiveMutex`): a sender that finds the thread swapping the queue
    // out (a few instructions) spins briefly instead of sleeping in the kernel at once.
    let results = (initializeAdaptiveMutex(mutex), pthread_cond_init(condition, &attributes))
    pthread_condattr_destroy(&attributes)
    precondition(results == (0, 0), "DedicatedThreadScheduler: pthread init failed: \(results)")
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  /// Whether the thread is parked now, waiting on the condition (under the mutex). For tests that
  /// send to a parked thread: they wait for this before they send.
  var isParked: Bool {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return parked
  }

  /// Whether the thread ever parks (so that a stage's producer must check whether to wake it).
  var mayPark: Bool {
    if case .spinThenPark = strategy { return true }
    return false
  }

  /// A stage's producer published an item: wakes the thread if it parks, or is about to.
  func wakeIfParked() {
    // Sequentially consistent: orders the item's publication before the flag's load, against the
    // thread's store of the flag before its last poll (a Dekker pair: one of the two sees the other).
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    guard parkedForPollers.load(ordering: .relaxed) else { return }
    pthread_mutex_lock(mutex)
    wakeSignal = true
    let wake = parked
    pthread_mutex_unlock(mutex)
    if wake { pthread_cond_signal(condition) }
  }

  /// Polls every registered stage once; forgets the finished ones. Returns whether any delivered.
  func pollAll() -> Bool {
    var worked = false
    var index = 0
    while index < pollers.count {
      let poller = pollers[index]
      switch poller.pollFunction(poller) {
      case .idle: index += 1
      case .worked:
        worked = true
        index += 1
      case .finished:
        pollers.remove(at: index)
        worked = true
      }
    }
    return worked
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
        let core = Unmanaged<DedicatedThreadLoop>.fromOpaque(context!).takeRetainedValue()
        core.run()
        return nil
      },
      context
    )
    precondition(result == 0, "DedicatedThreadScheduler: pthread_create failed: \(result)")
    pthread_detach(thread)
  }

  /// Queues `job` and wakes the thread if it is parked.
  func submit(_ job: Job) {
    pthread_mutex_lock(mutex)
    queue.push(job)
    // releasing: the thread that sees it (acquiring) sees the push. Set under the mutex, so it
    // never clears a later push's flag.
    hasWork.store(true, ordering: .releasing)
    let wake = parked
    pthread_mutex_unlock(mutex)
    if wake { pthread_cond_signal(condition) }
  }

  /// The scheduler was released: the thread runs what is queued, then exits.
  func stop() {
    pthread_mutex_lock(mutex)
    stopping = true
    hasWork.store(true, ordering: .releasing)
    let wake = parked
    pthread_mutex_unlock(mutex)
    if wake { pthread_cond_signal(condition) }
  }

  /// The thread's loop: take the queue, run it, run the timers due; wait by the strategy.
  func run() {
    var batch = WorkQueue<Job>()
    var idlePolls = 0
    while true {
      if !pollers.isEmpty, pollAll() { idlePolls = 0 }
      // acquiring: pairs with the releasing store of `submit`.
      // The lock is tried, not waited for: when a sender holds it (pushing, a few instructions),
      // the thread polls again instead of sleeping in the kernel, where its wake-up would cost
      // microseconds, or a scheduler tick when another thread took its core meanwhile.
      if hasWork.load(ordering: .acquiring), pthread_mutex_trylock(mutex) == 0 {
        swap(&queue, &batch)
        hasWork.store(false, ordering: .relaxed)  // under the mutex: a later push sets it again
        let stops = stopping
        pthread_mutex_unlock(mutex)
        // The events a stage's producer published before these actions were scheduled go first.
        if !pollers.isEmpty { _ = pollAll() }
        while let job = batch.pop() {
          switch job {
          case .now(let action): action()
          case .timer(let deadline, let action): timers.insert(action, due: deadline)
          case .poll(let poller):
            // Polled at once: its events sent before the actions after it in this batch go first.
            if poller.pollFunction(poller) != .finished { pollers.append(poller) }
          }
        }
        if stops { return }  // timers not yet due are dropped with this core
        idlePolls = 0
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

  /// Sleeps until a job is queued, a stage's item is published, or the next timer is due.
  func park() {
    let deadline = timers.firstDue
    if !pollers.isEmpty {
      // Sequentially consistent: see `wakeIfParked`.
      parkedForPollers.store(true, ordering: .sequentiallyConsistent)
      atomicMemoryFence(ordering: .sequentiallyConsistent)
      if pollAll() {
        parkedForPollers.store(false, ordering: .relaxed)
        return
      }
    }
    defer { parkedForPollers.store(false, ordering: .relaxed) }
    pthread_mutex_lock(mutex)
    // Under the mutex: no push, and no stage's wake-up, can be missed.
    if !hasWork.load(ordering: .relaxed), !wakeSignal {
      parked = true
      if let deadline {
        var time = timespec()
        time.tv_sec = Int(deadline.rounded(.down))
        time.tv_nsec = Int((deadline - deadline.rounded(.down)) * 1e9)
        pthread_cond_timedwait(condition, mutex, &time)
      } else {
        pthread_cond_wait(condition, mutex)
      }
      parked = false
    }
    wakeSignal = false
    pthread_mutex_unlock(mutex)
  }

  /// Runs the timers that are due (outside the lock: they are user code); returns whether any ran.
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
