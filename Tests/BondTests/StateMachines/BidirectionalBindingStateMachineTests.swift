import Testing

@testable import Bond

/// The non-`Equatable` two-way binding's machine alone, with no threads (threads are numbers here).
@Suite struct BidirectionalBindingStateMachineTests {
  @Test func theEchoOnTheFeedingThreadIsDroppedOnce() {
    var machine = BidirectionalBindingStateMachine()
    #expect(machine.received(from: .receiver, thread: 1) == .forward, "fed into the other side on thread 1")
    #expect(machine.other == .feeding(thread: 1) && machine.receiver == .idle)
    #expect(machine.received(from: .other, thread: 1) == .drop, "its echo, on the same thread")
    #expect(machine.other == .idle, "the echo came back: idle again")
    machine.feedEnded(.other)
    #expect(machine.other == .idle, "the feed's end after its echo changes nothing")
    #expect(machine.received(from: .other, thread: 1) == .forward, "a new value of that side")
    #expect(machine.receiver == .feeding(thread: 1))
  }

  @Test func aValueFromAnotherThreadIsNotAnEcho() {
    var machine = BidirectionalBindingStateMachine()
    #expect(machine.received(from: .other, thread: 1) == .forward)
    #expect(machine.received(from: .receiver, thread: 2) == .forward, "another thread: not the echo")
    #expect(machine.receiver == .feeding(thread: 1) && machine.other == .feeding(thread: 2), "both sides fed")
  }

  @Test func anEchoThatDidNotComeBackSynchronouslyIsNotExpectedAnyMore() {
    var machine = BidirectionalBindingStateMachine()
    #expect(machine.received(from: .receiver, thread: 1) == .forward)
    machine.feedEnded(.other)
    #expect(machine.other == .idle)
    #expect(machine.received(from: .other, thread: 1) == .forward, "a later value on that thread goes back")
  }

  /// Two threads write one side at once: the later feed of the other side replaces the earlier
  /// one's, whose echo then goes back once.
  @Test func aLaterFeedOfASideReplacesTheEarlierOne() {
    var machine = BidirectionalBindingStateMachine()
    #expect(machine.received(from: .receiver, thread: 1) == .forward)
    #expect(machine.received(from: .receiver, thread: 2) == .forward)
    #expect(machine.other == .feeding(thread: 2))
    #expect(machine.received(from: .other, thread: 2) == .drop, "thread 2's echo")
    #expect(
      machine.received(from: .other, thread: 1) == .forward,
      "thread 1's echo is no longer expected: it goes back"
    )
    #expect(machine.receiver == .feeding(thread: 1))
  }
}
