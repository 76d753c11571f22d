import Testing
@testable import Bond

/// The pure state machines of throttle and debounce (``TimedStateMachine``s), driven by hand (no
/// threads, no time).
@Suite struct TimedStateMachineTests {
  // MARK: - ThrottleStateMachine

  @Test func throttleIgnoresALateWindowEnd() {
    var machine = ThrottleStateMachine<Int>(mode: .latest)
    guard let first = machine.receive(1).schedule else {
      Issue.record("no window")
      return
    }
    let end = machine.fire(generation: first)
    #expect(end.deliver?.event == 1 && end.deliver?.endsRegistration == false && end.schedule == nil)
    guard let second = machine.receive(2).schedule else {
      Issue.record("no window")
      return
    }
    #expect(second != first)
    #expect(machine.fire(generation: first).deliver == nil, "a stale end does nothing")
    let handle = SimpleDisposable()
    #expect(machine.timerScheduled(handle, generation: first) === handle, "a stale handle is handed back")
    #expect(machine.timerScheduled(handle, generation: second) == nil)
    let (windowEnd, latest) = machine.disposed()
    #expect(windowEnd === handle && latest == 2)
  }

  @Test func throttleRegistrationWaitsForTheReplayedEvent() {
    var machine = ThrottleStateMachine<Int>(mode: .latest)
    guard let generation = machine.receive(1).schedule else {
      Issue.record("no window")
      return
    }
    #expect(machine.registrationEnded() == false)
    let end = machine.fire(generation: generation)
    #expect(end.deliver?.event == 1 && end.deliver?.endsRegistration == true)
  }

  @Test func throttleLiveEventReplacingTheReplayMakesRegisteredDue() {
    var machine = ThrottleStateMachine<Int>(mode: .leadingAndLatest)
    let leading = machine.receive(1)
    #expect(leading.deliver == 1 && leading.schedule != nil)
    _ = machine.receive(2)  // replayed, pending
    #expect(machine.registrationEnded() == false)
    let live = machine.receive(3)
    #expect(live.registeredDue && live.released == 2 && live.deliver == nil)
  }

  @Test func throttleLeadingAndLatestOpensTheNextWindowWithTheLatest() {
    var machine = ThrottleStateMachine<Int>(mode: .leadingAndLatest)
    let first = machine.receive(1).schedule!
    _ = machine.receive(2)
    let end = machine.fire(generation: first)
    #expect(end.deliver?.event == 2 && end.schedule == first &+ 1)
    #expect(machine.fire(generation: first &+ 1).deliver == nil, "an empty window closes")
    #expect(machine.receive(3).deliver == 3, "closed: the next event leads")
  }

  @Test func throttleEndFlushesTheLatestEventAndCancelsTheWindow() {
    var machine = ThrottleStateMachine<Int>(mode: .latest)
    let generation = machine.receive(1).schedule!
    _ = machine.receive(2)
    let handle = BlockDisposable {}
    #expect(machine.timerScheduled(handle, generation: generation) == nil)
    let end = machine.ended()
    #expect(end.endsNow)
    #expect(end.flush?.event == 2 && end.flush?.endsRegistration == false && end.cancel === handle)
    #expect(machine.fire(generation: generation).deliver == nil, "a window's end after the end")
    let late = machine.receive(3)
    #expect(late.deliver == nil && late.schedule == nil, "an event after the end")
    #expect(machine.ended().flush == nil, "a second end flushes nothing")
  }

  @Test func throttleEndFlushesAPendingReplayWithRegistered() {
    var machine = ThrottleStateMachine<Int>(mode: .latest)
    _ = machine.receive(1)  // the replay
    let registeredDue = machine.registrationEnded()
    #expect(!registeredDue, "registered waits for the replayed event")
    let end = machine.ended()
    #expect(end.endsNow)
    #expect(end.flush?.event == 1 && end.flush?.endsRegistration == true && end.cancel == nil)
  }

  @Test func throttleLeadingEndHasNothingToFlush() {
    var machine = ThrottleStateMachine<Int>(mode: .leading)
    _ = machine.receive(1)
    #expect(machine.receive(2).released == nil, "leading drops the others of the window")
    #expect(machine.ended().flush == nil)
  }

  // MARK: - DebounceStateMachine

  @Test func debounceIgnoresAReplacedTimer() {
    var machine = DebounceStateMachine<Int>()
    let first = machine.receive(1).schedule!
    let handle = SimpleDisposable()
    #expect(machine.timerScheduled(handle, generation: first) == nil)
    let second = machine.receive(2)
    #expect(second.cancel === handle && second.released == 1)
    #expect(machine.fire(generation: first).deliver == nil)
    #expect(machine.fire(generation: second.schedule!).deliver?.event == 2)
  }

  @Test func debounceAfterDisposeDoesNothing() {
    var machine = DebounceStateMachine<Int>()
    _ = machine.receive(1)
    #expect(machine.disposed().dropped == 1)
    #expect(machine.receive(2).schedule == nil)
    #expect(machine.registrationEnded() == false)
  }

  @Test func debounceEndFlushesTheWaitingEventAndCancelsItsTimer() {
    var machine = DebounceStateMachine<Int>()
    let generation = machine.receive(1).schedule!
    let handle = BlockDisposable {}
    #expect(machine.timerScheduled(handle, generation: generation) == nil)
    let end = machine.ended()
    #expect(end.endsNow)
    #expect(end.flush?.event == 1 && end.cancel === handle)
    #expect(machine.fire(generation: generation).deliver == nil, "the timer is stale after the end")
    #expect(machine.receive(2).schedule == nil, "an event after the end schedules nothing")
  }

  @Test func debounceEndWithNothingWaiting() {
    var machine = DebounceStateMachine<Int>()
    let generation = machine.receive(1).schedule!
    _ = machine.fire(generation: generation)
    let end = machine.ended()
    #expect(end.endsNow)
    #expect(end.flush == nil && end.cancel == nil)
  }

  // MARK: - TimeoutStateMachine

  @Test func timeoutArmsAtStartAndRearmsPerEvent() {
    var machine = TimeoutStateMachine<Int>(last: 9, seconds: 1)
    #expect(machine.timerAtStart == 1)
    let first = SimpleDisposable()
    let kept = machine.timerScheduled(first, generation: 1)
    #expect(kept == nil)
    let receive = machine.receive(5)
    #expect(receive.deliver == 5 && receive.schedule == 2 && receive.cancel === first)
    let staleFire = machine.fire(generation: 1)
    #expect(staleFire.ends == false, "a stale timer does nothing")
    let stale = SimpleDisposable()
    let handedBack = machine.timerScheduled(stale, generation: 1)
    #expect(handedBack === stale, "a stale handle is handed back")
    let fire = machine.fire(generation: 2)
    #expect(fire.deliver?.event == 9 && fire.ends)
    let late = machine.receive(6)
    #expect(late.deliver == nil && late.schedule == nil, "nothing after the timeout")
    let end = machine.ended()
    #expect(end.endsNow == false, "the end was handed over by the timeout")
    let registered = machine.registrationEnded()
    #expect(registered == false)
  }

  @Test func timeoutUpstreamEndCancelsTheTimer() {
    var machine = TimeoutStateMachine<Int>(last: nil, seconds: 1)
    let timer = SimpleDisposable()
    let registered = machine.registrationEnded()
    #expect(registered)
    let kept = machine.timerScheduled(timer, generation: 1)
    #expect(kept == nil)
    let end = machine.ended()
    #expect(end.endsNow && end.cancel === timer && end.flush == nil)
    let fire = machine.fire(generation: 1)
    #expect(fire.ends == false)
    let disposed = machine.disposed()
    #expect(disposed.timer == nil)
  }

  @Test func timeoutWithoutLastOnlyEnds() {
    var machine = TimeoutStateMachine<Int>(last: nil, seconds: 1)
    let fire = machine.fire(generation: 1)
    #expect(fire.deliver == nil && fire.ends && fire.schedule == nil)
  }

  /// On a clocked scheduler an event moves the deadline: no timer is cancelled or scheduled; the
  /// timer that fires before the deadline is scheduled again for the rest, then ends at it.
  @Test func timeoutOnAClockMovesTheDeadline() {
    var machine = TimeoutStateMachine<Int>(last: 9, seconds: 1)
    let first = SimpleDisposable()
    #expect(machine.timerScheduled(first, generation: 1) == nil)
    let receive = machine.receive(5, now: 0.25)
    #expect(receive.deliver == 5 && receive.schedule == nil && receive.cancel == nil)
    let again = machine.fire(generation: 1, now: 1)
    #expect(again.schedule == 2 && again.delay == 0.25 && again.deliver == nil && !again.ends)
    #expect(machine.timerScheduled(SimpleDisposable(), generation: 2) == nil)
    let fire = machine.fire(generation: 2, now: 1.25)
    #expect(fire.deliver?.event == 9 && fire.ends && fire.schedule == nil, "the end at the deadline")
    let late = machine.receive(6, now: 1.5)
    #expect(late.deliver == nil, "nothing after the timeout")
  }

  @Test func timeoutOnAClockWithNoEventEndsAtTheFirstTimer() {
    var machine = TimeoutStateMachine<Int>(last: nil, seconds: 1)
    let fire = machine.fire(generation: 1, now: 1)
    #expect(fire.deliver == nil && fire.ends && fire.schedule == nil)
  }
}
