import Dispatch
import Foundation

/// The executor of the worker tasks of Bond's concurrency-limited stages
/// (`map(maxConcurrent:)` and its family): every job runs on Dispatch's global concurrent queue.
///
/// Why not Swift's cooperative pool (one thread per core): a stage's workers must not depend on
/// it, so code that blocks a cooperative thread (a synchronous wait in a test, a blocking driver
/// call) cannot starve them, and a transform that blocks (CPU work, a synchronous call) does not
/// starve the rest of the program's tasks. Dispatch adds threads when its threads block, and runs
/// at most as many at once as there are cores otherwise, like the pool, whose threads these are
/// on Linux (one root queue): a task sending into the stage waits for one of them. A worker that
/// never suspends (a transform that returns at once) runs as one job for all its events, but for
/// a yield each time it releases the stage's pressure when the stage's workers can hold every
/// thread, so that the senders it resumed run first.
/// - Note: thread-safe.
@usableFromInline
final class DispatchTaskExecutor: TaskExecutor {
  /// The one executor of every stage.
  @usableFromInline static let shared = DispatchTaskExecutor()
  /// How many of its jobs Dispatch runs at once when none blocks: one per active core.
  @usableFromInline static let threads = ProcessInfo.processInfo.activeProcessorCount

  @usableFromInline
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    DispatchQueue.global().async { job.runSynchronously(on: executor) }
  }
}
