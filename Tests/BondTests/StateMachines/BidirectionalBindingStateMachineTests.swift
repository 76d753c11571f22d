import Testing

@testable import Bond

/// The non-`Equatable` two-way binding's machine alone, with no threads (threads are numbers here).
@Suite struct BidirectionalBindingStateMachineTests {
  @Test func theEchoOnTheFeedingThreadIsDroppedOnce() {
    var machine = BidirectionalBindingStateMachine()
    #expect(machine.received(from: .receiver, thread: 1) == .forward, "fed into the other side on thread 1")
    #expect(machine.received(from: .other, thread: 1) == .drop, "its echo, on the same thread")
    #expect(machine.received(from: .other, thread: 1) == .forward, "a new value of that side")
    machine.forwardFinished(to: .receiver)
    machine.forwardFinished(to: .other)
  }

  @Test func aValueFromAnotherThreadIsNotAnEcho() {
    var machine = BidirectionalBindingStateMachine()
    #expect(machine.received(from: .other, thread: 1) == .forward)
    #expect(machine.received(from: .receiver, thread: 2) == .forward, "another thread: not the echo")
  }

  @Test func anEchoThatDidNotComeBackSynchronouslyIsNotExpectedAnyMore() {
    var machine = BidirectionalBindingStateMachine()
    #expect(machine.received(from: .receiver, thread: 1) == .forward)
    machine.forwardFinished(to: .other)
    #expect(machine.received(from: .other, thread: 1) == .forward, "a later value on that thread goes back")
  }
}
