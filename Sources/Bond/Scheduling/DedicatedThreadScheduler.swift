#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A low-latency ``Scheduler`` that owns one thread and polls for work, as the LMAX Disruptor's
/// consumers do: a `deliverOn` or `batches` stage on it, or a `partition` lane on it (one scheduler
/// per lane: ``EventProducerType/partition(lanes:bufferLimit:whenFull:statistics:on:by:)``), hands
/// each event over without waking a `DispatchQueue` thread, in well under a microsecond instead of
/// several. An unbounded `deliverOn` on it hands its events over through a ring that the thread
/// polls (no lock and no action per event: see <doc:SchedulingGuide>).
///
/// ```swift
/// let hop = DedicatedThreadScheduler(waitStrategy: .busySpin)
/// orders.deliverOn(hop).observe { match($0) }       // p50 under 0.5 µs per hop
/// ```
///
/// Actions run one at a time, in the order they were scheduled (a serial scheduler), on the
/// scheduler's thread; `schedule(after:_:)` timers run in deadline order on the same thread.
///
/// **When to use it:** a latency-critical hop on a machine with a core to spare for it. **What it
/// costs:** one thread per scheduler, for its whole life, and with `.busySpin` one core at 100%
/// even when idle (`.yield` gives the core to other threads between polls but still shows as busy;
/// `.spinThenPark`, the default, spins for a while after the last action, then sleeps and costs
/// nothing while idle, waking in a few microseconds). On a machine with fewer cores than busy
/// threads, spinning makes latency worse: use `DispatchQueue` there. The thread stops when the
/// scheduler is released, after the actions already scheduled (timers not yet due are dropped).
///
/// See <doc:SchedulingGuide>.
/// - Note: thread-safe: schedule from any thread, the scheduler's own included.
public final class DedicatedThreadScheduler: ClockedScheduler {
  /// How the scheduler's thread waits for work (the Disruptor's wait strategies).
  public enum WaitStrategy: Sendable, Hashable {
    /// Polls without pause: the lowest latency, one core always busy.
    case busySpin
    /// Polls, calling `sched_yield()` between polls: a little more latency, and other threads may
    /// run on the core; still busy while idle.
    case yield
    /// Polls `spins` times after the last action, then parks on a condition variable until an
    /// action or the next timer is due: no core burnt while idle. The default (`spins` 10,000:
    /// tens of microseconds of spinning).
    case spinThenPark(spins: Int = 10_000)
  }

  let core: DedicatedThreadLoop

  /// Starts the scheduler's thread.
  /// - Parameter waitStrategy: how the thread waits for work; `.spinThenPark()` by default.
  /// - Precondition: `spins` of `.spinThenPark` is 0 or more.
  public init(waitStrategy: WaitStrategy = .spinThenPark()) {
    if case .spinThenPark(let spins) = waitStrategy {
      precondition(
        spins >= 0,
        "DedicatedThreadScheduler(waitStrategy:): spins must be 0 or more, got \(spins)"
      )
    }
    core = DedicatedThreadLoop(strategy: waitStrategy)
    core.start()
  }

  deinit {
    core.stop()
  }

  /// Queues `action` to run on the scheduler's thread after the actions scheduled before it.
  public func schedule(_ action: @escaping @Sendable () -> Void) {
    core.submit(.now(action))
  }

  /// Runs `action` on the scheduler's thread after `seconds`.
  ///
  /// Disposing the returned disposable before the action starts cancels it and releases it at once.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @discardableResult
  public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any DisposableType {
    precondition(
      seconds >= 0,
      "DedicatedThreadScheduler.schedule(after:_:): seconds must be 0 or more, got \(seconds)"
    )
    let timer = CancellableAction(action)
    core.submit(.timer(deadline: DedicatedThreadLoop.clock() + seconds, timer))
    return timer
  }

  /// The monotonic clock's time in seconds (`CLOCK_MONOTONIC`), on which the timers count.
  public var now: Double { DedicatedThreadLoop.clock() }

  /// How the scheduler's thread waits for work.
  public var waitStrategy: WaitStrategy { core.strategy }
}
