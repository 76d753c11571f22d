import Testing

@testable import Bond

/// The machine of `batchedValues` and `values` alone, with no threads: the consumer's takes and
/// waits, the overflow policies, the pressure and both ends, driven by hand.
@Suite struct BatchedValuesStateMachineTests {
  typealias Machine = BatchedValuesStateMachine<Int>

  /// A machine (static: an exit test's body captures nothing, and calls it too).
  static func machine(
    maxCount: Int = .max,
    bufferLimit: Int = .max,
    policy: DeliveryOverflowPolicy = .dropOldest
  ) -> Machine {
    Machine(
      maxCount: maxCount,
      bufferLimit: bufferLimit,
      policy: policy,
      call: "batchedValues(maxCount:bufferLimit:whenFull:)"
    )
  }

  func machine(maxCount: Int = .max, bufferLimit: Int = .max, policy: DeliveryOverflowPolicy = .dropOldest) -> Machine {
    Self.machine(maxCount: maxCount, bufferLimit: bufferLimit, policy: policy)
  }

  func taken<Taken>(_ take: Machine.Take<Taken>) -> (Taken, release: Bool)? {
    guard case .events(let taken, let release) = take else { return nil }
    return (taken, release)
  }

  func waits<Taken>(_ take: Machine.Take<Taken>) -> Bool {
    if case .wait = take { return true }
    return false
  }

  func ends<Taken>(_ take: Machine.Take<Taken>) -> Bool {
    if case .end = take { return true }
    return false
  }

  @Test func theEventsComeInArraysOfAtMostMaxCount() {
    var machine = machine(maxCount: 2)
    #expect(waits(machine.take()), "nothing yet: the consumer waits")
    for value in 0..<5 { _ = machine.received(value) }
    #expect(taken(machine.take())?.0 == [0, 1])
    #expect(taken(machine.takeOne())?.0 == 2)
    #expect(taken(machine.take())?.0 == [3, 4])
    #expect(machine.count == 0 && waits(machine.take()))
  }

  @Test func dropOldestDropsTheOldestAndDropNewestTheNew() {
    var oldest = machine(bufferLimit: 2, policy: .dropOldest)
    _ = oldest.received(0)
    _ = oldest.received(1)
    #expect(oldest.received(2).dropped == [0])
    #expect(taken(oldest.take())?.0 == [1, 2])
    var newest = machine(bufferLimit: 2, policy: .dropNewest)
    _ = newest.received(0)
    _ = newest.received(1)
    #expect(newest.received(2).dropped.isEmpty, "not kept: the caller releases it")
    #expect(taken(newest.take())?.0 == [0, 1])
  }

  @Test func backpressureIsRaisedAtTheLimitAndReleasedAtHalf() {
    var machine = machine(maxCount: 1, bufferLimit: 4, policy: .backpressure)
    for value in 0..<3 { #expect(machine.received(value).pressure == nil) }
    #expect(machine.received(3).pressure == true, "the limit: raised")
    #expect(machine.received(4).pressure == nil, "never drops; raised already")
    #expect(taken(machine.take())?.release == false, "4 left")
    #expect(taken(machine.take())?.release == false, "3 left")
    #expect(taken(machine.take())?.release == true, "2 left: half the limit, released")
    #expect(taken(machine.take())?.release == false)
  }

  @Test func aWaitingConsumerIsResumedByAnEventOrTheEnd() async {
    var machine = machine()
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      let resumesAtOnce = machine.suspend(continuation)
      #expect(!resumesAtOnce, "nothing waits: the consumer is kept")
      let action = machine.received(1)
      #expect(action.resume != nil, "the event resumes it")
      action.resume?.resume()
    }
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      let resumesAtOnce = machine.suspend(continuation)
      #expect(resumesAtOnce, "an event waits: resume at once")
      continuation.resume()
    }
    #expect(taken(machine.take())?.0 == [1])
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      let resumesAtOnce = machine.suspend(continuation)
      #expect(!resumesAtOnce)
      let action = machine.finished()
      #expect(action.resume != nil, "the end resumes it")
      action.resume?.resume()
    }
    #expect(ends(machine.take()))
  }

  @Test func theEventsLeftAtTheEndAreTakenThenNil() {
    var machine = machine(bufferLimit: 4, policy: .backpressure)
    for value in 0..<4 { _ = machine.received(value) }
    #expect(machine.finished().pressure == false, "the end releases the pressure")
    #expect(taken(machine.take())?.0 == [0, 1, 2, 3])
    #expect(ends(machine.take()) && ends(machine.takeOne()))
  }

  @Test func afterTheConsumerWentEverythingIsLetGoAndIgnored() {
    var machine = machine()
    _ = machine.received(0)
    _ = machine.received(1)
    #expect(machine.terminated().dropped == [0, 1])
    #expect(machine.received(2).dropped.isEmpty && machine.count == 0, "an event racing the disposal: ignored")
    #expect(machine.finished().resume == nil, "the end racing the disposal: ignored")
    _ = machine.terminated()  // the cancellation and the next call both end the consumer
    #expect(ends(machine.take()))
  }

  @Test func anEventAfterTheEndStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = BatchedValuesStateMachineTests.machine()
      _ = machine.finished()
      _ = machine.received(0)
    }
    #expect(exitTestStandardError(result).contains("BatchedValuesStateMachine.received"))
  }

  @Test func aSecondEndStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = BatchedValuesStateMachineTests.machine()
      _ = machine.finished()
      _ = machine.finished()
    }
    #expect(exitTestStandardError(result).contains("BatchedValuesStateMachine.finished"))
  }
}
