import BondTesting
import Dispatch
import Testing

@Suite struct TestSchedulerTests {
  @Test func nothingRunsUntilTimeMoves() {
    let clock = TestScheduler()
    let log = Recorder<String>()
    clock.schedule { log.add("now") }
    clock.schedule(after: 1) { log.add("later") }
    #expect(log.items == [] && clock.now == 0 && clock.pendingActionCount == 2)
    clock.advance(by: 0)
    #expect(log.items == ["now"] && clock.now == 0)
    clock.advance(by: 0.5)
    #expect(log.items == ["now"] && clock.now == 0.5)
    clock.advance(by: 0.5)
    #expect(log.items == ["now", "later"] && clock.now == 1 && clock.pendingActionCount == 0)
  }

  @Test func runsInTimeOrderWithNowAtEachDueTime() {
    let clock = TestScheduler()
    let log = Recorder<String>()
    // Scheduled out of order; equal due times run first in, first out.
    for (delay, name) in [(3.0, "c"), (1.0, "a1"), (2.0, "b"), (1.0, "a2"), (0.0, "zero")] {
      clock.schedule(after: delay) { log.add("\(name)@\(clock.now)") }
    }
    clock.advance(by: 2.5)
    #expect(log.items == ["zero@0.0", "a1@1.0", "a2@1.0", "b@2.0"])
    #expect(clock.now == 2.5)
    clock.advance(by: 10)
    #expect(log.items.last == "c@3.0" && clock.now == 12.5)
  }

  @Test func actionsScheduledWhileRunningRunIfDueInTheWindow() {
    let clock = TestScheduler()
    let log = Recorder<String>()
    clock.schedule(after: 1) {
      log.add("first@\(clock.now)")
      clock.schedule { log.add("soon@\(clock.now)") }  // due now (1)
      clock.schedule(after: 0.5) { log.add("inside@\(clock.now)") }  // due 1.5, in the window
      clock.schedule(after: 5) { log.add("outside@\(clock.now)") }  // due 6, after it
    }
    clock.advance(by: 2)
    #expect(log.items == ["first@1.0", "soon@1.0", "inside@1.5"])
    #expect(clock.now == 2 && clock.pendingActionCount == 1)
    clock.run()
    #expect(log.items.last == "outside@6.0" && clock.now == 6)
  }

  @Test func dueNowRunsAfterActionsAlreadyDueAtTheSameTime() {
    let clock = TestScheduler()
    let log = Recorder<String>()
    clock.schedule(after: 1) {
      log.add("a")
      clock.schedule { log.add("c") }
    }
    clock.schedule(after: 1) { log.add("b") }
    clock.advance(by: 1)
    #expect(log.items == ["a", "b", "c"])
  }

  @Test func runMovesTimeToTheLastAction() {
    let clock = TestScheduler()
    let log = Recorder<Double>()
    clock.schedule(after: 2) { log.add(clock.now) }
    clock.schedule(after: 7) { log.add(clock.now) }
    clock.run()
    #expect(log.items == [2, 7] && clock.now == 7)
    clock.run()  // nothing left: time stays
    #expect(clock.now == 7)
  }

  @Test func advanceToLandsExactlyOnTheTime() {
    let clock = TestScheduler()
    clock.advance(to: 0.1)
    clock.advance(to: 0.3)
    #expect(clock.now == 0.3)
    clock.advance(to: 0.3)  // no move is fine
    #expect(clock.now == 0.3)
  }

  @Test func cancelledActionNeverRunsAndIsReleasedAtOnce() {
    let clock = TestScheduler()
    let log = Recorder<String>()
    weak var weakTracked: Tracked?
    let handle: any DisposableType
    do {
      let tracked = Tracked("captured")
      weakTracked = tracked
      handle = clock.schedule(after: 1) { log.add(tracked.name) }
    }
    #expect(weakTracked != nil && !handle.isDisposed)
    handle.dispose()
    #expect(weakTracked == nil && handle.isDisposed && clock.pendingActionCount == 0)
    handle.dispose()  // twice is harmless
    clock.run()
    #expect(log.items == [])
  }

  @Test func anActionIsReleasedOnceItHasRun() {
    let clock = TestScheduler()
    weak var weakTracked: Tracked?
    do {
      let tracked = Tracked()
      weakTracked = tracked
      clock.schedule { _ = tracked }
    }
    #expect(weakTracked != nil)
    clock.advance(by: 0)
    #expect(weakTracked == nil)
  }

  @Test func anActionCanCancelALaterOne() {
    let clock = TestScheduler()
    let log = Recorder<String>()
    let later = clock.schedule(after: 2) { log.add("later") }
    clock.schedule(after: 1) { later.dispose() }
    clock.run()
    #expect(log.items == [])
  }

  @Test func schedulingFromManyThreads() {
    let clock = TestScheduler()
    let counter = Recorder<Int>()
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for index in 0..<250 {
        if index.isMultiple(of: 2) {
          clock.schedule { counter.add(thread) }
        } else {
          clock.schedule(after: Double(index)) { counter.add(thread) }
        }
      }
    }
    #expect(clock.pendingActionCount == 2000)
    clock.run()
    #expect(counter.items.count == 2000 && clock.pendingActionCount == 0)
  }

  @Test func negativeAdvanceStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      TestScheduler().advance(by: -1)
    }
    #expect(exitTestStandardError(result).contains("TestScheduler.advance(by:): seconds must be 0 or more, got -1.0"))
  }

  @Test func nanAdvanceStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      TestScheduler().advance(by: .nan)
    }
    #expect(exitTestStandardError(result).contains("TestScheduler.advance(by:): seconds must be 0 or more, got nan"))
  }

  @Test func advanceToThePastStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let clock = TestScheduler()
      clock.advance(by: 2)
      clock.advance(to: 1)
    }
    #expect(
      exitTestStandardError(result).contains("TestScheduler.advance(to:): time must not be before now (2.0), got 1.0")
    )
  }

  @Test func negativeDelayStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      TestScheduler().schedule(after: -0.5) {}
    }
    #expect(
      exitTestStandardError(result).contains("TestScheduler.schedule(after:_:): seconds must be 0 or more, got -0.5")
    )
  }
}

@Suite struct DispatchQueueSchedulerTests {
  @Test func schedulesNowAndLater() {
    let queue = DispatchQueue(label: "test.scheduler")
    let log = Recorder<String>()
    let done = DispatchSemaphore(value: 0)
    queue.schedule { log.add("now") }
    queue.schedule(after: 0) {
      log.add("later")
      done.signal()
    }
    #expect(done.wait(timeout: .now() + outcomeWatchdogSeconds) == .success)
    #expect(log.items == ["now", "later"])
  }

  @Test func cancelReleasesTheActionAtOnceAndItNeverRuns() {
    let queue = DispatchQueue(label: "test.scheduler.cancel")
    let log = Recorder<String>()
    weak var weakTracked: Tracked?
    let handle: any DisposableType
    do {
      let tracked = Tracked("late")
      weakTracked = tracked
      handle = queue.schedule(after: 3600) { log.add(tracked.name) }
    }
    #expect(weakTracked != nil && !handle.isDisposed)
    handle.dispose()
    #expect(weakTracked == nil && handle.isDisposed)
    queue.sync {}
    #expect(log.items == [])
  }

  @Test func staticMembersReadAsSchedulers() {
    func takes(_ scheduler: some Scheduler) -> Bool { true }
    #expect(takes(.main) && takes(.global()) && takes(.global(qos: .utility)))
  }

  @Test func negativeDelayStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      DispatchQueue.global().schedule(after: -1) {}
    }
    #expect(
      exitTestStandardError(result).contains("DispatchQueue.schedule(after:_:): seconds must be 0 or more, got -1.0")
    )
  }

  @Test func nanDelayStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      DispatchQueue.global().schedule(after: .nan) {}
    }
    #expect(
      exitTestStandardError(result).contains("DispatchQueue.schedule(after:_:): seconds must be 0 or more, got nan")
    )
  }
}
