import Dispatch
import Synchronization
import Testing
@testable import Bond

/// The one serializer's protocol step by step (`Core/DeliveryRights.swift`): a drainer whose queue
/// the test fills with items of a made-up other thread, and whose worker starts only when the test
/// lets it, so that every interleaving below is the one written, on one thread (the worker's apart).
private final class ScriptedDrainer: RightsDrainer, @unchecked Sendable {
  // @unchecked: `pending` is reached under `lock`; `batch` and `performed` only by the holder of the
  // rights, whose changes of hands order them (the count's read-modify-writes, the dispatch).
  let rights = DeliveryRights()
  let lock = LockedState<[SentWork<Int>]>([])
  var batch: [SentWork<Int>] = []
  var performed: [Int] = []
  /// Signalled by the test to let the dispatched worker claim; signalled by the worker when done.
  let workerMayStart = DispatchSemaphore(value: 0)
  let workerDone = DispatchSemaphore(value: 0)
  let workerDispatches = Atomic<Int>(0)

  // The rights' calls, forwarded (`#expect` cannot inspect a non-copyable value's members).
  func takeIfIdle() -> Bool { rights.takeIfIdle() }
  func giveBack(_ accounted: Int) -> Int { rights.giveBack(accounted) }
  func counted(_ items: Int) -> Int? { rights.counted(items) }
  var isIdle: Bool { rights.isIdle }
  var queuedCount: Int { rights.queuedCount }

  /// Lets the dispatched worker claim, and waits until it has returned (`false` after 60 s: none).
  func letTheWorkerRun() -> Bool {
    workerMayStart.signal()
    return workerDone.wait(timeout: .now() + 60) == .success
  }

  func push(_ value: Int, sender: UInt) {
    lock.withLock { $0.append(SentWork(value, sender: sender)) }
  }

  func refillDraining() {
    if batch.isEmpty { lock.withLock { swap(&$0, &batch) } }
  }

  func nextSenderDraining() -> UInt? { batch.first?.sender }

  func performNextDraining() { performed.append(batch.removeFirst().work) }

  func drainQueued(missed: Int, budget: Int) { rights.drain(self, missed: missed, budget: budget) }

  func drainAsWorker() {
    workerDispatches.add(1, ordering: .relaxed)
    workerMayStart.wait()
    rights.drainAsWorker(self)
    workerDone.signal()
  }
}

/// A thread id that is not this test's: its items count against a budget.
private let otherThread: UInt = 1

@Suite struct DeliveryRightsTests {
  @Test func anIdleOwnerIsTakenAndGivenBackWithoutTheQueue() {
    let drainer = ScriptedDrainer()
    #expect(drainer.takeIfIdle())
    #expect(!drainer.takeIfIdle(), "held: a second take fails")
    #expect(drainer.giveBack(1) == 0)
    #expect(drainer.isIdle)
  }

  @Test func aSpentBudgetLeavesTheRightsVacantAndTheNextSenderClaimsThem() {
    let drainer = ScriptedDrainer()
    for value in 0..<5 { drainer.push(value, sender: otherThread) }
    // The five were pushed and counted while another thread held the rights; it left at once.
    #expect(drainer.counted(5) == 5, "from idle: this call holds the rights, 5 to account for")
    drainer.drainQueued(missed: 5, budget: 2)
    #expect(drainer.performed == [0, 1], "the budget: two items of another thread")
    #expect(!drainer.isIdle && drainer.queuedCount == 5, "vacant: the count kept, the rest in place")
    #expect(!drainer.takeIfIdle(), "vacant is not idle: no fast path overtakes the queue")

    // The next sender claims the vacancy (its own item queued behind the rest) and drains in order.
    drainer.push(5, sender: currentThreadID())
    #expect(drainer.counted(1) == 0, "claimed: drain from missed 0")
    drainer.push(6, sender: otherThread)
    #expect(drainer.counted(1) == nil, "held by the claimant: queued")
    drainer.drainQueued(missed: 0, budget: .max)
    #expect(drainer.performed == Array(0...6))
    #expect(drainer.isIdle)

    // The worker dispatched for the vacancy finds it claimed: it performs nothing.
    #expect(drainer.letTheWorkerRun(), "the worker ran within 60 s")
    #expect(drainer.performed == Array(0...6) && drainer.isIdle)
    #expect(drainer.workerDispatches.load(ordering: .relaxed) == 1)
  }

  @Test func theWorkerClaimsAVacancyNobodyElseClaims() {
    let drainer = ScriptedDrainer()
    for value in 0..<4 { drainer.push(value, sender: otherThread) }
    #expect(drainer.counted(4) == 4)
    drainer.drainQueued(missed: 4, budget: 1)
    #expect(drainer.performed == [0])
    #expect(drainer.letTheWorkerRun(), "the worker ran within 60 s")
    #expect(drainer.performed == [0, 1, 2, 3], "the worker went on where the holder stopped, in order")
    #expect(drainer.isIdle)
  }

  @Test func oneWorkerAtATimeIsDispatchedAndNotYetStarted() {
    let drainer = ScriptedDrainer()
    for value in 0..<6 { drainer.push(value, sender: otherThread) }
    #expect(drainer.counted(6) == 6)
    drainer.drainQueued(missed: 6, budget: 1)  // vacancy 1: a worker is dispatched
    drainer.push(6, sender: otherThread)
    #expect(drainer.counted(1) == 0, "claimed")
    drainer.drainQueued(missed: 0, budget: 1)  // vacancy 2, before the worker started: no second dispatch
    #expect(drainer.performed == [0, 1])
    #expect(drainer.letTheWorkerRun(), "the worker ran within 60 s")
    #expect(drainer.performed == Array(0...6), "the one worker claimed the second vacancy and drained the rest")
    #expect(drainer.isIdle)
    #expect(drainer.workerDispatches.load(ordering: .relaxed) == 1)
  }

  @Test func aHoldersOwnItemsAreNotCountedAgainstItsBudget() {
    let drainer = ScriptedDrainer()
    let own = currentThreadID()
    for value in 0..<3 { drainer.push(value, sender: own) }
    drainer.push(3, sender: otherThread)
    drainer.push(4, sender: otherThread)
    #expect(drainer.counted(5) == 5)
    drainer.drainQueued(missed: 5, budget: 1)
    #expect(drainer.performed == [0, 1, 2, 3], "its own three, then one of another thread's")
    #expect(drainer.letTheWorkerRun(), "the worker ran within 60 s")
    #expect(drainer.performed == [0, 1, 2, 3, 4] && drainer.isIdle)
  }
}
