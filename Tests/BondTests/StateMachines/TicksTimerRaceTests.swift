@testable import Bond
import Testing

/// `interval`'s machine when a timer fires before the thread that scheduled it has stored its
/// handle (a short period on a busy machine): the handle arrives spent and is dropped, and the next
/// tick's handle is stored. Found by the lifetime table under ThreadSanitizer, where the machine
/// stopped on "one timer at a time".
@Suite struct TicksTimerRaceTests {
  @Test func aHandleThatArrivesAfterItsTimerFiredIsDropped() {
    var machine = TicksStateMachine(repeats: true)
    let first = BlockDisposable {}
    guard case .deliver(tick: 0, ends: false) = machine.fire() else {
      Issue.record("tick 0 not delivered")
      return
    }
    #expect(machine.timerScheduled(first, forTick: 0) == nil, "a spent handle is neither stored nor handed back")
    #expect(machine.delivered() == 1)
    let second = BlockDisposable {}
    #expect(machine.timerScheduled(second, forTick: 1) == nil)
    // The late handle of tick 0 again, now that tick 1's timer waits: still dropped, tick 1's kept.
    #expect(machine.timerScheduled(first, forTick: 0) == nil)
    #expect(machine.disposed() === second, "dispose() cancels the timer of the tick that waits")
  }

  @Test func aHandleThatArrivesAfterDisposeIsHandedBackToCancel() {
    var machine = TicksStateMachine(repeats: true)
    _ = machine.disposed()
    let handle = BlockDisposable {}
    #expect(machine.timerScheduled(handle, forTick: 0) === handle)
  }
}
