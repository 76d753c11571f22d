import BondTesting
import Dispatch
import Foundation
import Testing

@testable import Bond

/// How many transforms run now, and the most at once.
final class RunningCount: @unchecked Sendable {
  private let lock = NSLock()
  private var now = 0
  private var most = 0
  func enter() {
    lock.lock()
    now += 1
    most = max(most, now)
    lock.unlock()
  }
  func leave() {
    lock.lock()
    now -= 1
    lock.unlock()
  }
  var peak: Int {
    lock.lock()
    defer { lock.unlock() }
    return most
  }
}

/// A gate a transform waits on (asynchronously) until the test opens it.
final class AsyncGate: @unchecked Sendable {
  private let lock = NSLock()
  private var isOpen = false
  func open() {
    lock.lock()
    isOpen = true
    lock.unlock()
  }
  var opened: Bool {
    lock.lock()
    defer { lock.unlock() }
    return isOpen
  }
  func wait() async {
    while !opened && !Task.isCancelled { try? await Task.sleep(nanoseconds: 200_000) }
  }
}

struct Rejected: Error {}

@Suite struct ConcurrentMapTests {
  @Test func resultsComeInTheOrderOfTheEventsWithAtMostMaxConcurrentAtOnce() {
    let source = EventProducer<Int>()
    let running = RunningCount()
    let results = Recorder<Int>()
    let ended = DispatchSemaphore(value: 0)
    source.map(maxConcurrent: 3) { value -> Int in
      running.enter()
      // Simulated work: later ones tend to finish first. The order and the upper bound checked below
      // hold whatever the timing; the lower bound only needs two of the 60 to overlap.
      try? await Task.sleep(nanoseconds: UInt64(10 - value % 10) * 100_000)
      running.leave()
      return value * 2
    }.observe {
      results.add($0)
    } finished: {
      ended.signal()
    }
    for value in 0..<60 { source.next(value) }
    source.finish()
    #expect(ended.wait(timeout: .now() + outcomeWatchdogSeconds) == .success)
    #expect(results.items == (0..<60).map { $0 * 2 })
    #expect(running.peak <= 3 && running.peak >= 2, "peak \(running.peak)")
  }

  /// Timeline: three events, `maxConcurrent: 2`; the first is slow, so the second's result waits
  /// for it, and the third starts only when one of the first two is done.
  @Test func aFinishedResultWaitsForTheEarlierOneAndTheThirdWaitsForAWorker() {
    let source = EventProducer<Int>()
    let firstGate = AsyncGate()
    let started = Recorder<Int>()
    let returned = Recorder<Int>()
    let results = Recorder<Int>()
    source.map(maxConcurrent: 2) { value -> Int in
      started.add(value)
      if value == 0 { await firstGate.wait() }
      returned.add(value)
      return value
    }.observe { results.add($0) }
    for value in 0..<3 { source.next(value) }
    #expect(waitUntil { Set(started.items) == [0, 1] && returned.items == [1] })
    #expect(results.items.isEmpty, "1 is done but waits for 0")
    #expect(!started.items.contains(2), "the window is full: 0 runs and 1 waits to be delivered")
    firstGate.open()
    #expect(waitUntil { results.items == [0, 1, 2] })
  }

  @Test func mapUnorderedDeliversAsTheyComplete() {
    let source = EventProducer<Int>()
    let results = Recorder<Int>()
    let ended = DispatchSemaphore(value: 0)
    let slowGate = AsyncGate()
    // 0 finishes only once 1 and 2 have been delivered: as they complete, 0 comes last.
    source.mapUnordered(maxConcurrent: 2, bufferLimit: 8) { value -> Int in
      if value == 0 { await slowGate.wait() }
      return value
    }.observe { value in
      results.add(value)
      if Set(results.items) == [1, 2] { slowGate.open() }
    } finished: {
      ended.signal()
    }
    for value in 0..<3 { source.next(value) }
    source.finish()
    #expect(ended.wait(timeout: .now() + outcomeWatchdogSeconds) == .success)
    #expect(results.items.sorted() == [0, 1, 2] && results.items.last == 0, "\(results.items)")
  }

  @Test func tryMapTurnsAnErrorIntoThatEventsResultInItsPlace() {
    let source = EventProducer<Int>()
    let results = Recorder<String>()
    let ended = DispatchSemaphore(value: 0)
    source.tryMap(maxConcurrent: 2) { value -> Int in
      if value == 1 { throw Rejected() }
      return value * 10
    }.observe { result in
      switch result {
      case .success(let value): results.add("\(value)")
      case .failure(let error): results.add(error is Rejected ? "rejected" : "other")
      }
    } finished: {
      ended.signal()
    }
    for value in 0..<4 { source.next(value) }
    source.finish()
    #expect(ended.wait(timeout: .now() + outcomeWatchdogSeconds) == .success)
    #expect(results.items == ["0", "rejected", "20", "30"])
  }

  @Test func theEndComesAfterTheLastResultOrAtOnceWhenNothingRuns() {
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let ended = DispatchSemaphore(value: 0)
    source.map(maxConcurrent: 2) { value -> Int in
      // Simulated work, so that the end arrives while results are due; the verdict waits for the end.
      try? await Task.sleep(nanoseconds: 5_000_000)
      return value
    }.observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
      ended.signal()
    }
    source.next(1)
    source.next(2)
    source.finish()
    #expect(ended.wait(timeout: .now() + outcomeWatchdogSeconds) == .success)
    #expect(log.items == ["1", "2", "end"])

    let idle = EventProducer<Int>()
    let idleLog = Recorder<String>()
    idle.map(maxConcurrent: 2) { $0 }.observe {
      idleLog.add("\($0)")
    } finished: {
      idleLog.add("end")
    }
    idle.finish()
    #expect(idleLog.items == ["end"], "nothing waits or runs: the end at once")
  }

  /// Rule 1 and 3: `bufferLimit` waiting events put the upstream under pressure; `dispose()`
  /// cancels the running transform, delivers nothing more and releases the pressure.
  @Test func theBufferTakesPartInFlowControlAndDisposeCancels() {
    let source = EventProducer<Int>()
    let started = Recorder<Int>()
    let cancelled = Recorder<Int>()
    let results = Recorder<Int>()
    let stage = source.map(maxConcurrent: 1, bufferLimit: 2) { value -> Int in
      started.add(value)
      while !Task.isCancelled { try? await Task.sleep(nanoseconds: 1_000_000) }
      cancelled.add(value)
      return value
    }.observe { results.add($0) }
    source.next(0)
    #expect(waitUntil { started.items == [0] })
    source.next(1)
    #expect(source.isWritable, "1 waiting of bufferLimit 2")
    source.next(2)
    #expect(!source.isWritable, "bufferLimit waiting: under pressure")
    stage.dispose()
    #expect(waitUntil { cancelled.items == [0] })
    // Nothing can be waited for here: the check is that nothing more happens. The pause only gives
    // a wrong result or a new transform the time to show; under load it can miss one, never fail.
    usleep(50_000)
    #expect(results.items.isEmpty && started.items == [0], "no result, no new transform after dispose()")
    #expect(source.isWritable && source.observerCount == 0)
  }

  @Test func thePressureIsReleasedAtHalfTheBufferLimit() {
    let source = EventProducer<Int>()
    let gate = AsyncGate()
    let results = Recorder<Int>()
    source.map(maxConcurrent: 1, bufferLimit: 4) { value -> Int in
      if value == 0 { await gate.wait() }
      return value
    }.observe { results.add($0) }
    source.next(0)
    #expect(waitUntil { source.observerCount == 1 })
    for value in 1...4 { source.next(value) }
    #expect(!source.isWritable)
    gate.open()
    #expect(waitUntil { results.items == [0, 1, 2, 3, 4] && source.isWritable })
  }

  /// A `registered` observer hears it after the results of the replayed events.
  @Test func registeredComesAfterTheResultsOfTheReplay() {
    let source = EventProducer<Int>(replayLength: 2)
    source.next(1)
    source.next(2)
    let log = Recorder<String>()
    let observation = source.map(maxConcurrent: 2) { $0 * 10 }.observe {
      log.add("\($0)")
    } registered: {
      log.add("registered")
    }
    source.next(3)
    #expect(waitUntil { log.items.count == 4 })
    #expect(log.items == ["10", "20", "registered", "30"])
    observation.dispose()
  }

  /// Rule 2 of flow control through this stage: a `.backpressure` stage downstream pauses the
  /// workers; the events wait in this stage's buffer, which then puts the source under pressure.
  @Test func aStageDownstreamUnderPressurePausesTheWorkers() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let received = Recorder<Int>()
    source.map(maxConcurrent: 2, bufferLimit: 4) { $0 }
      .deliverOn(clock, bufferLimit: 2, whenFull: .backpressure)
      .observe { received.add($0) }
    for value in 0..<2 { source.next(value) }
    #expect(waitUntil { clock.pendingActionCount > 0 }, "the results wait in the downstream stage")
    for value in 2..<8 { source.next(value) }
    #expect(waitUntil { !source.isWritable }, "the downstream stage is full, so this stage fills")
    // The workers run on other threads: run the clock until every result has come through (an
    // outcome, not a moment: a loaded machine may take a while).
    #expect(
      waitUntil {
        clock.run()
        return received.items.count == 8
      }
    )
    #expect(received.items == Array(0..<8))
    #expect(waitUntil { source.isWritable })
  }

  @Test func maxConcurrentBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().map(maxConcurrent: 0) { $0 }
    }
    #expect(
      exitTestStandardError(result).contains(
        "map(maxConcurrent:bufferLimit:statistics:_:): maxConcurrent must be at least 1, got 0"
      )
    )
  }

  @Test func bufferLimitBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().tryMap(maxConcurrent: 2, bufferLimit: 0) { $0 }
    }
    #expect(
      exitTestStandardError(result).contains(
        "tryMap(maxConcurrent:bufferLimit:statistics:_:): bufferLimit must be at least 1, got 0"
      )
    )
  }
}
