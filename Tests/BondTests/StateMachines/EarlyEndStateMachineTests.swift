import Testing

@testable import Bond

/// `take` and `take(while:)`'s machine alone, with no threads: each input's method and its action.
@Suite struct EarlyEndStateMachineTests {
  @Test func aCountDeliversThenEndsWithTheLastOne() {
    var machine = EarlyEndStateMachine(count: 2, registeredDue: true)
    #expect(machine.received(.deliver) == .deliver)
    #expect(machine.registrationEnded() == .callRegistered)
    #expect(machine.received(.deliver) == .deliverThenEnd(registered: false))
    #expect(machine.received(.deliver) == .ignore, "the rest of a replay after the end")
    #expect(machine.upstreamEnded() == .ignore, "it ended early")
  }

  @Test func aPredicatesEndDuringTheRegistrationCallsRegisteredFirst() {
    var machine = EarlyEndStateMachine(count: nil, registeredDue: true)
    #expect(machine.received(.deliver) == .deliver)
    #expect(machine.received(.end) == .end(registered: true))
    #expect(machine.registrationEnded() == .ignore, "the end called registered")
  }

  @Test func theUpstreamsEndPassesThrough() {
    var machine = EarlyEndStateMachine(count: nil, registeredDue: false)
    #expect(machine.received(.deliverThenEnd) == .deliverThenEnd(registered: false))
    var other = EarlyEndStateMachine(count: 3, registeredDue: false)
    #expect(other.upstreamEnded() == .end(registered: false))
  }

  @Test func aRegistrationThatIsNotDueStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = EarlyEndStateMachine(count: nil, registeredDue: false)
      _ = machine.registrationEnded()
    }
    #expect(exitTestStandardError(result).contains("EarlyEndStateMachine.registrationEnded"))
  }
}
