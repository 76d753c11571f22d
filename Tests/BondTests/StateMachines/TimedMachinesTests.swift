import Testing

@testable import Bond

/// The timed machines that had no test of their own, alone with no threads: each method's action.
@Suite struct TimedMachinesTests {
  // MARK: - TimedCollectStateMachine

  @Test func timedCollectFillsAnArrayThenDeliversItWhenFull() {
    var machine = TimedCollectStateMachine<Int>(count: 2)
    let first = machine.receive(1)
    #expect(first.deliver == nil && first.schedule == 1, "the first element arms the array's timer")
    let timer = SimpleDisposable()
    #expect(machine.timerScheduled(timer, generation: 1) == nil)
    let full = machine.receive(2)
    #expect(full.deliver == [1, 2] && full.cancel === timer, "full: delivered at once, its timer cancelled")
    #expect(machine.fire(generation: 1).deliver == nil, "a stale timer does nothing")
    let registered = machine.registrationEnded()
    #expect(registered)
  }

  @Test func timedCollectDeliversThePartialArrayWhenItsTimerFires() {
    var machine = TimedCollectStateMachine<Int>(count: 3)
    _ = machine.receive(1)
    let fire = machine.fire(generation: 1)
    #expect(fire.deliver?.event == [1] && !fire.ends)
    _ = machine.receive(2)
    let end = machine.ended()
    #expect(end.flush?.event == [2] && end.endsNow, "the end flushes the partial array")
    #expect(machine.receive(3).deliver == nil, "nothing after the end")
  }

  @Test func timedCollectStopsOnASecondTimerForOneWindow() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = TimedCollectStateMachine<Int>(count: 3)
      _ = machine.receive(1)
      _ = machine.timerScheduled(SimpleDisposable(), generation: 1)
      _ = machine.timerScheduled(SimpleDisposable(), generation: 1)
    }
    #expect(exitTestStandardError(result).contains("TimedCollectStateMachine.timerScheduled"))
  }

  // MARK: - DelayStateMachine

  @Test func delayDeliversEachEventAtItsTimerAndEndsAfterTheLast() {
    var machine = DelayStateMachine<Int>()
    #expect(machine.receive(1).schedule == 1)
    #expect(machine.receive(2).schedule == 2)
    #expect(machine.registrationEnded() == false, "registered waits for the replayed events")
    let first = machine.fire(generation: 1)
    #expect(first.deliver?.event == 1 && first.deliver?.endsRegistration == false && !first.ends)
    let end = machine.ended()
    #expect(!end.endsNow && end.flush == nil, "nothing is flushed early: the end waits for the last")
    let last = machine.fire(generation: 2)
    #expect(last.deliver?.event == 2 && last.deliver?.endsRegistration == true && last.ends)
  }

  @Test func delayWithNothingWaitingEndsAtOnceAndDisposeReleasesTheWaiting() {
    var idle = DelayStateMachine<Int>()
    let registered = idle.registrationEnded()
    #expect(registered, "nothing waits: registered at once")
    let end = idle.ended()
    #expect(end.endsNow)
    var machine = DelayStateMachine<Int>()
    _ = machine.receive(7)
    let timer = SimpleDisposable()
    #expect(machine.timerScheduled(timer, generation: 1) == nil)
    let disposed = machine.disposed()
    #expect(disposed.timer === timer && disposed.dropped == [7])
    #expect(machine.fire(generation: 1).deliver == nil, "nothing after dispose")
  }

  @Test func delayStopsOnATimerWithNoEventWaiting() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = DelayStateMachine<Int>()
      _ = machine.fire(generation: 1)
    }
    #expect(exitTestStandardError(result).contains("DelayStateMachine.fire: a timer fired with no event waiting"))
  }

  // MARK: - TicksStateMachine

  @Test func ticksDeliverOneTickPerTimerAndScheduleTheNextAfterTheDelivery() {
    var machine = TicksStateMachine(repeats: true)
    let timer = SimpleDisposable()
    #expect(machine.timerScheduled(timer, forTick: 0) == nil)
    guard case .deliver(tick: 0, ends: false) = machine.fire() else {
      Issue.record("the first tick")
      return
    }
    #expect(machine.delivered() == 1, "the next tick is scheduled after the delivery")
    #expect(machine.disposed() == nil, "no timer stored yet")
    guard case .nothing = machine.fire() else {
      Issue.record("nothing after dispose")
      return
    }
  }

  @Test func aTimerTicksOnceThenEnds() {
    var machine = TicksStateMachine(repeats: false)
    guard case .deliver(tick: 0, ends: true) = machine.fire() else {
      Issue.record("one tick, then the end")
      return
    }
    #expect(machine.delivered() == nil)
  }

  @Test func ticksStopOnATimerFiredWhileATickIsDelivered() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = TicksStateMachine(repeats: true)
      _ = machine.fire()
      _ = machine.fire()
    }
    #expect(exitTestStandardError(result).contains("TicksStateMachine.fire: a timer fired while a tick is delivered"))
  }
}
