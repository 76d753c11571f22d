import Foundation
import Testing
@testable import Bond

// Guarantee 3 of CONTRACT.md: `dispose()` never waits for another thread's delivery. Each test
// builds one of the deadlock shapes of issue 9; a `Rendezvous` inside the deliveries makes the
// two deliveries overlap for certain, so an engine that waits in `dispose()` hangs in the first
// round (and the watchdog turns the hang into a failed run) instead of hanging only sometimes.
// Run under `swift test --sanitize=thread --filter DisposalLivenessStressTests`.

/// `true` when `log` is 0, 1, 2, ... with no gap and no duplicate (what an observer disposed at
/// some point of a sender's run must have received from it).
private func isPrefixRun(_ log: [Int], from first: Int = 0) -> Bool {
  log == Array(first..<first + log.count)
}

@Suite(.serialized) struct DisposalLivenessStressTests {
  /// Shape (a): two producers whose observers each dispose (even rounds), or observe and then
  /// dispose (odd rounds), an observation of the other, sent from two threads.
  @Test func observersOfTwoProducersDisposeEachOthersObservations() async {
    let rounds = 100 * stressScale
    let perRound = 20
    await withWatchdog("observersOfTwoProducersDisposeEachOthersObservations", seconds: 60) {
      for round in 0..<rounds {
        let disposeVictims = round % 2 == 0
        let producers = [EventProducer<Int>(), EventProducer<Int>()]
        let victimLogs = [Recorder<Int>(), Recorder<Int>()]
        let victims: [any DisposableType] = (0..<2).map { side in producers[side].observe { victimLogs[side].add($0) } }
        let killerCounts = [Counter(), Counter()]
        let rendezvous = Rendezvous()
        let killers: [any DisposableType] = (0..<2).map { side in
          let other = 1 - side
          return producers[side].observe { event in
            // Both threads are inside a delivery (each holds its producer's delivery rights).
            if event == 0 { rendezvous.arrive(side) }
            if disposeVictims {
              victims[other].dispose()
            } else {
              // Registers behind the other thread's delivery, then disposes at once.
              producers[other].observe { _ in }.dispose()
            }
            killerCounts[side].increment()
          }
        }
        runTogether(threads: 2) { side in
          for value in 0..<perRound { producers[side].next(value) }
        }
        // A sender that found the other's registration in progress queued its event, and the
        // registering thread handed what it found queued to a worker: wait for it. A killer's
        // delivery registers with the other producer: the two in turn, twice.
        for _ in 0..<2 {
          await producers[0].flush()
          await producers[1].flush()
        }
        for side in 0..<2 {
          #expect(killerCounts[side].count == perRound, "round \(round): nothing lost")
          let log = victimLogs[side].items
          if disposeVictims {
            #expect(victims[side].isDisposed)
            #expect(!log.isEmpty && isPrefixRun(log), "round \(round): the victim got a run 0..<k, got \(log)")
            #expect(producers[side].observerCount == 1, "round \(round): only the killer is left")
          } else {
            #expect(log == Array(0..<perRound))
            #expect(producers[side].observerCount == 2, "round \(round): observe-then-dispose left nothing registered")
          }
        }
        victims.forEach { $0.dispose() }
        killers.forEach { $0.dispose() }
        #expect(producers.allSatisfy { $0.observerCount == 0 })
      }
    }
  }

  /// Shape (b): `switchToLatest` switching to a new inner (which disposes its observation of the
  /// old inner) while an observer of the old inner disposes the switch's observation.
  @Test func switchToLatestSwitchingWhileAnInnersObserverDisposesTheSwitch() {
    let rounds = 100 * stressScale
    withWatchdog("switchToLatestSwitchingWhileAnInnersObserverDisposesTheSwitch", seconds: 60) {
      for round in 0..<rounds {
        let outer = EventProducer<EventProducer<Int>>()
        let first = EventProducer<Int>()
        let second = EventProducer<Int>()
        let rendezvous = Rendezvous()
        // Registered before the switch: runs first in the outer's delivery of `second`.
        let hook = outer.observe { inner in if inner === second { rendezvous.arrive(0) } }
        let switchObservation = Locked<(any DisposableType)?>(nil)
        // Registered on `first` before the switch's own observation of `first`: runs first.
        let disposer = first.observe { value in
          if value == 0 {
            rendezvous.arrive(1)
            switchObservation.value?.dispose()
          }
        }
        let forwarded = Recorder<Int>()
        let switched = outer.switchToLatest().observe { forwarded.add($0) }
        switchObservation.withLock { $0 = switched }
        outer.next(first)
        runTogether(threads: 2) { side in
          if side == 0 {
            outer.next(second)  // the switch disposes its observation of `first`
          } else {
            first.next(0)  // the disposer disposes the switch's observation
            first.next(1)
          }
        }
        second.next(99)
        #expect(switched.isDisposed)
        #expect(!forwarded.items.contains(99), "round \(round): nothing after dispose")
        #expect(!forwarded.items.contains(1), "round \(round): nothing after dispose")
        #expect(outer.observerCount == 1, "round \(round): only the hook is left")
        #expect(first.observerCount == 1, "round \(round): only the disposer is left")
        #expect(second.observerCount == 0, "round \(round): the disposed switch does not keep following `second`")
        hook.dispose()
        disposer.dispose()
      }
    }
  }

  /// Shape (c): `performBatchUpdates` disposes an observation of the array while an observer,
  /// delivered on another thread, mutates the array (and so waits for the batch to end).
  @Test func batchDisposesAnObservationWhileAnObserverOnAnotherThreadMutates() {
    let rounds = 100 * stressScale
    withWatchdog("batchDisposesAnObservationWhileAnObserverOnAnotherThreadMutates", seconds: 60) {
      for round in 0..<rounds {
        let array = ObservableArray<Int>([0])
        let inObserver = DispatchSemaphore(value: 0)
        let batchStarted = DispatchSemaphore(value: 0)
        let mutator = array.observe { event in
          guard case .insert(let elements, _) = event.operation, elements == [1] else { return }
          inObserver.signal()
          batchStarted.wait()
          array.append(2)  // waits for the other thread's batch to end
        }
        let disposedLog = Recorder<String>()
        let disposed = array.observe { disposedLog.add("\($0.operation)") }
        var mirror: [Int] = []
        let mirrorObservation = array.observe { $0.operation.apply(to: &mirror) }
        let countAfterDispose = Locked(-1)
        runTogether(threads: 2) { side in
          if side == 0 {
            array.append(1)  // delivered on this thread: the mutator runs here
          } else {
            inObserver.wait()
            array.performBatchUpdates { array in
              batchStarted.signal()
              disposed.dispose()
              countAfterDispose.withLock { $0 = array.observerCount }
              array.append(3)
            }
          }
        }
        #expect(array.array == [0, 1, 3, 2], "round \(round)")
        #expect(mirror == array.array, "round \(round): the mirror rebuilt from the events")
        #expect(disposed.isDisposed)
        #expect(
          disposedLog.items.count == 1,
          "round \(round): only the replay, nothing after dispose: \(disposedLog.items)"
        )
        #expect(countAfterDispose.value == 2, "round \(round): observerCount exact when dispose() returned")
        mutator.dispose()
        mirrorObservation.dispose()
        #expect(array.observerCount == 0)
      }
    }
  }

  /// Shape (d): an observer does `queue.sync {}` onto a serial queue while a block on that queue
  /// disposes a different observation of the same producer (the main-thread pattern of UI apps).
  @Test func observerWaitingOnASerialQueueWhoseBlockDisposesAnotherObservation() {
    let rounds = 100 * stressScale
    let perRound = 10
    let queue = DispatchQueue(label: "bond.stress.liveness.serial")
    withWatchdog("observerWaitingOnASerialQueueWhoseBlockDisposesAnotherObservation", seconds: 60) {
      for round in 0..<rounds {
        let producer = EventProducer<Int>()
        let entered = DispatchSemaphore(value: 0)
        let otherLog = Recorder<Int>()
        let other = producer.observe { otherLog.add($0) }
        let log = Recorder<Int>()
        let waiting = producer.observe { value in
          if value == 0 {
            entered.signal()
            queue.sync {}  // waits for the block below, which disposes `other`
          }
          log.add(value)
        }
        let countAfterDispose = Locked(-1)
        queue.async {
          entered.wait()
          other.dispose()
          countAfterDispose.withLock { $0 = producer.observerCount }
        }
        for value in 0..<perRound { producer.next(value) }
        queue.sync {}
        #expect(log.items == Array(0..<perRound), "round \(round): nothing lost")
        #expect(otherLog.items == [0], "round \(round): nothing after dispose")
        #expect(other.isDisposed)
        #expect(countAfterDispose.value == 1, "round \(round): observerCount exact when dispose() returned")
        waiting.dispose()
        #expect(producer.observerCount == 0)
      }
    }
  }

  /// Dispose latency, by an ordering fact: observer A holds the delivery rights (blocked on a
  /// semaphore inside its delivery on another thread) with 10,000 events queued behind it; the
  /// disposal of observation B returns while A is still blocked (A is released only after it).
  @Test func disposeReturnsWhileAnotherObserverIsBlockedBehindABacklog() async {
    let backlog = 10_000
    await withWatchdog("disposeReturnsWhileAnotherObserverIsBlockedBehindABacklog", seconds: 60) {
      for _ in 0..<(3 * stressScale) {
        let producer = EventProducer<Int>()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocked = Locked(false)
        let aLog = Recorder<Int>()
        let a = producer.observe { value in
          if value == 0 {
            blocked.withLock { $0 = true }
            entered.signal()
            release.wait()
            blocked.withLock { $0 = false }
          }
          aLog.add(value)
        }
        final class Token: Sendable {}
        var token: Token? = Token()
        weak let releasedToken = token
        let bLog = Recorder<Int>()
        let b = producer.observe { [token] value in
          withExtendedLifetime(token) { bLog.add(value) }
        }
        token = nil
        let holderDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
          producer.next(0)  // A blocks here: this thread holds the delivery rights
          holderDone.signal()
        }
        entered.wait()
        let senderDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
          for value in 1...backlog { producer.next(value) }  // queued behind A
          senderDone.signal()
        }
        senderDone.wait()

        b.dispose()
        let stillBlocked = blocked.value
        let countAtReturn = producer.observerCount
        #expect(stillBlocked, "dispose() returned while A was still blocked (A is released only now)")
        #expect(countAtReturn == 1, "observerCount dropped by one when dispose() returned")
        #expect(b.isDisposed)

        release.signal()
        holderDone.wait()  // the holder drains its budget of the backlog, then leaves the rest (a worker claims it)
        await producer.flush()
        #expect(aLog.items == Array(0...backlog), "A got every event, in order")
        #expect(bLog.items.isEmpty, "B got nothing after dispose (event 0 had not reached it yet)")
        #expect(releasedToken == nil, "B's closure was released once the drainer got past it")
        a.dispose()
        #expect(producer.observerCount == 0)
      }
    }
  }

  /// The observer that is blocked inside its delivery on another thread is itself disposed:
  /// `dispose()` returns at once; the running delivery runs to its end; nothing more starts.
  @Test func disposingTheObserverThatIsBlockedInsideItsDeliveryReturnsAtOnce() async {
    let backlog = 10_000
    await withWatchdog("disposingTheObserverThatIsBlockedInsideItsDeliveryReturnsAtOnce", seconds: 60) {
      let producer = EventProducer<Int>()
      let entered = DispatchSemaphore(value: 0)
      let release = DispatchSemaphore(value: 0)
      let blocked = Locked(false)
      let aLog = Recorder<Int>()
      let a = producer.observe { value in
        if value == 0 {
          blocked.withLock { $0 = true }
          entered.signal()
          release.wait()
          blocked.withLock { $0 = false }
        }
        aLog.add(value)
      }
      let cLog = Recorder<Int>()
      let c = producer.observe { cLog.add($0) }
      let holderDone = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        producer.next(0)
        holderDone.signal()
      }
      entered.wait()
      let senderDone = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        for value in 1...backlog { producer.next(value) }
        senderDone.signal()
      }
      senderDone.wait()
      a.dispose()
      #expect(blocked.value, "dispose() of the running observer returned while it was still running")
      #expect(producer.observerCount == 1)
      release.signal()
      holderDone.wait()
      await producer.flush()
      #expect(aLog.items == [0], "the running delivery ran to its end, no new one started")
      #expect(cLog.items == Array(0...backlog), "the other observer got every event")
      c.dispose()
      #expect(producer.observerCount == 0)
    }
  }

  /// Two threads send into one producer and each disposes the other's observation mid-run,
  /// 10,000 rounds.
  @Test func crossDisposalFromTwoThreadsForManyRounds() {
    let rounds = 10_000 * stressScale
    let half = 4
    withWatchdog("crossDisposalFromTwoThreadsForManyRounds", seconds: 60) {
      let producers = (0..<rounds).map { _ in EventProducer<Int>() }
      // logs[round][side]: what the observation owned by thread `side` received.
      let logs = (0..<rounds).map { _ in [Recorder<Int>(), Recorder<Int>()] }
      let observations: [[any DisposableType]] = (0..<rounds).map { round in
        (0..<2).map { side in producers[round].observe { logs[round][side].add($0) } }
      }
      let barrier = RoundBarrier(parties: 2)
      runTogether(threads: 2) { side in
        for round in 0..<rounds {
          barrier.wait()
          let producer = producers[round]
          for value in 0..<half { producer.next(side * 1_000 + value) }
          observations[round][1 - side].dispose()
          for value in half..<2 * half { producer.next(side * 1_000 + value) }
        }
      }
      var failures = 0
      for round in 0..<rounds where failures < 5 {
        let count = producers[round].observerCount
        var ok = count == 0 && observations[round].allSatisfy(\.isDisposed)
        for side in 0..<2 {
          let log = logs[round][side].items
          for sender in 0..<2 {
            ok = ok && isPrefixRun(log.filter { $0 / 1_000 == sender }.map { $0 - sender * 1_000 })
          }
        }
        if !ok {
          failures += 1
          Issue.record("round \(round): observerCount \(count), logs \(logs[round].map(\.items))")
        }
      }
    }
  }
}
