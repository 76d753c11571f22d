@testable import Bond
import Dispatch
import Foundation
import Synchronization
import Testing

/// The hand-off of `DedicatedThreadScheduler` (`DedicatedThreadCore`): tasks linked through
/// themselves, each waiting at most once, run oldest first, released after their run or with the
/// core, never run after it.
@Suite(.serialized) struct DedicatedThreadCoreTests {
  /// A task that counts its runs.
  final class CountingTask: ScheduledTask, @unchecked Sendable {
    let runs = Atomic<Int>(0)
    static let work: @Sendable (ScheduledTask) -> Void = { task in
      (task as! CountingTask).runs.add(1, ordering: .relaxed)
    }
  }

  /// Occupies the scheduler's thread until the returned semaphore is signalled.
  func occupy(_ scheduler: DedicatedThreadScheduler) -> DispatchSemaphore {
    let release = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)
    scheduler.schedule {
      entered.signal()
      release.wait()
    }
    entered.wait()
    return release
  }

  @Test func aTaskPushedTwiceBeforeItRunsRunsOnceAndAgainWhenPushedAfter() {
    let scheduler = DedicatedThreadScheduler(waitStrategy: .spinThenPark(spins: 0))
    let task = CountingTask()
    let release = occupy(scheduler)
    scheduler.core.submit(task, work: CountingTask.work)
    scheduler.core.submit(task, work: CountingTask.work)
    release.signal()
    #expect(waitUntil { task.runs.load(ordering: .relaxed) == 1 })
    // Both pushes are served by that one run; a later push runs it again.
    let after = DispatchSemaphore(value: 0)
    scheduler.schedule { after.signal() }
    after.wait()
    #expect(task.runs.load(ordering: .relaxed) == 1)
    scheduler.core.submit(task, work: CountingTask.work)
    #expect(waitUntil { task.runs.load(ordering: .relaxed) == 2 })
  }

  @Test func aTaskPushedAgainByItsOwnRunRunsAgain() {
    let scheduler = DedicatedThreadScheduler(waitStrategy: .busySpin)
    let task = CountingTask()
    let core = scheduler.core
    let work: @Sendable (ScheduledTask) -> Void = { task in
      let runs = (task as! CountingTask).runs.add(1, ordering: .relaxed).newValue
      if runs == 1 { core.submit(task, work: CountingTask.work) }
    }
    core.submit(task, work: work)
    #expect(waitUntil { task.runs.load(ordering: .relaxed) == 2 })
  }

  @Test func tasksAndActionsRunInTheOrderTheyWerePushed() {
    let scheduler = DedicatedThreadScheduler(waitStrategy: .yield)
    let log = Recorder<Int>()
    let tasks = (0..<50).map { _ in CountingTask() }
    let release = occupy(scheduler)
    for (index, task) in tasks.enumerated() {
      scheduler.schedule { log.add(2 * index) }
      scheduler.core.submit(task) { _ in log.add(2 * index + 1) }
    }
    release.signal()
    #expect(waitUntil { log.items.count == 100 })
    #expect(log.items == Array(0..<100))
  }

  @Test func theHandOffReleasesATaskAfterItsRun() {
    let scheduler = DedicatedThreadScheduler(waitStrategy: .busySpin)
    weak var weakTask: CountingTask?
    do {
      let task = CountingTask()
      weakTask = task
      scheduler.core.submit(task, work: CountingTask.work)
    }
    #expect(waitUntil { weakTask == nil })
  }

  /// A core whose thread is gone releases the tasks still linked in it, and never runs them.
  @Test func aCoreReleasesTheTasksItNeverRan() {
    weak var weakTask: CountingTask?
    let ran = Recorder<Int>()
    do {
      let core = DedicatedThreadCore(strategy: .busySpin)  // never started: no thread takes
      for _ in 0..<3 {
        let task = CountingTask()
        weakTask = task
        core.submit(task) { _ in ran.add(1) }
      }
      #expect(weakTask != nil, "held by the hand-off")
    }
    #expect(weakTask == nil)
    #expect(ran.items.isEmpty)
  }

  /// A scheduled delivery on the dedicated scheduler pushes itself; on another scheduler it does not.
  @Test func aDeliveryOnTheDedicatedSchedulerUsesItsHandOff() {
    let scheduler = DedicatedThreadScheduler(waitStrategy: .busySpin)
    let onDedicated = ScheduledDelivery(scheduler: scheduler, observer: EventObserver<Int>({ _ in }))
    let onQueue = ScheduledDelivery(scheduler: DispatchQueue(label: "queue"), observer: EventObserver<Int>({ _ in }))
    #expect(onDedicated.handOff === scheduler.core)
    #expect(onQueue.handOff == nil)
  }
}
