import Testing

@testable import Bond

/// The senders' intake of a concurrency-limited stage, driven through its machine with no threads:
/// when a sender may leave its event there, how the events reach the workers, and how the intake
/// keeps `bufferLimit`'s pressure exact.
@Suite struct ConcurrentMapIntakeTests {
  typealias Machine = ConcurrentMapStateMachine<Int, Int>

  let intake = LockedState(ConcurrentMapIntake<Int>())

  func machine(maxConcurrent: Int, bufferLimit: Int = 8) -> Machine {
    Machine(maxConcurrent: maxConcurrent, bufferLimit: bufferLimit, ordered: true, intake: intake)
  }

  /// A sender's fast path: whether the intake took `input`.
  func send(_ input: Int) -> Bool { intake.withLock { $0.accept(input) } }

  /// The event a worker takes, or `nil` when it ends.
  func take(_ machine: inout Machine, worker: Int) -> Int? {
    var releases = false
    guard case .event(_, let input) = machine.take(worker: worker, releases: &releases) else { return nil }
    return input
  }

  /// Finishes `output` and delivers what is ready; returns the results delivered and the worker's
  /// next event.
  func finish(_ output: Int, sequence: Int, _ machine: inout Machine, worker: Int) -> (delivered: [Int], next: Int?) {
    var releases = false
    var delivered: [Int] = []
    var step = machine.finished(
      output,
      sequence: sequence,
      worker: worker,
      downstreamPressured: false,
      releases: &releases
    )
    while true {
      switch step {
      case .deliver(let value): delivered.append(value)
      case .registered: break
      case .done(_, let next):
        guard case .event(_, let input) = next else { return (delivered, nil) }
        return (delivered, input)
      }
      step = machine.nextDelivery(worker: worker, downstreamPressured: false, releases: &releases)
    }
  }

  @Test func closedUntilMaxConcurrentWorkersLive() {
    var machine = machine(maxConcurrent: 2)
    #expect(!send(0), "no worker lives: the first event goes through the machine")
    #expect(machine.eventReceived(0).start == [0])
    #expect(!send(1), "one worker of two: the machine starts the second for this event")
    #expect(machine.eventReceived(1).start == [1])
    #expect(send(2), "both workers live: the intake takes the event")
    #expect(take(&machine, worker: 0) == 0)
    #expect(take(&machine, worker: 1) == 1)
  }

  @Test func aWorkerTakesTheIntakesEventsInOrderOnceTheWaitingOnesAreTaken() {
    var machine = machine(maxConcurrent: 1)
    _ = machine.eventReceived(0)
    #expect(send(1) && send(2))
    #expect(take(&machine, worker: 0) == 0)
    #expect(finish(0, sequence: 0, &machine, worker: 0) == ([0], 1))
    #expect(finish(1, sequence: 1, &machine, worker: 0) == ([1], 2))
    #expect(send(3), "the worker lives: still open")
    #expect(finish(2, sequence: 2, &machine, worker: 0) == ([2], 3))
    #expect(finish(3, sequence: 3, &machine, worker: 0) == ([3], nil), "nothing left: the worker ends")
    #expect(!send(4), "the last worker closed the intake as it found it empty")
    #expect(machine.eventReceived(4).start == [1], "the machine starts a worker for it")
  }

  /// An event the intake holds when a worker ends for another reason (the window is full) moves
  /// into the machine, which starts a worker for it when the window moves.
  @Test func aWorkerStoppedByTheWindowMovesTheIntakesEvents() {
    var machine = machine(maxConcurrent: 2)
    _ = machine.eventReceived(0)
    _ = machine.eventReceived(1)
    #expect(take(&machine, worker: 0) == 0)
    #expect(take(&machine, worker: 1) == 1)
    #expect(send(2))
    // Worker 1 finishes first: its result waits for 0, the window is full, it ends.
    #expect(finish(10, sequence: 1, &machine, worker: 1) == ([], nil))
    #expect(!send(3), "one worker of two left: closed")
    #expect(machine.waiting.count == 1 && intake.withLock { $0.events.isEmpty }, "2 moved into the machine")
    #expect(machine.eventReceived(3).start.isEmpty, "the window is full: no worker yet")
    var releases = false
    guard
      case .deliver(0) = machine.finished(0, sequence: 0, worker: 0, downstreamPressured: false, releases: &releases)
    else { return #expect(Bool(false), "0 is delivered first") }
    guard case .deliver(10) = machine.nextDelivery(worker: 0, downstreamPressured: false, releases: &releases)
    else { return #expect(Bool(false), "then 1's result") }
    guard
      case .done(let actions, .again) = machine.nextDelivery(worker: 0, downstreamPressured: false, releases: &releases)
    else { return #expect(Bool(false), "a worker to start first, then worker 0 takes") }
    #expect(actions.start == [2], "a worker is started for the second event")
    #expect(take(&machine, worker: 0) == 2)
    #expect(take(&machine, worker: 2) == 3)
  }

  /// The intake never holds the event that brings the waiting events to `bufferLimit`: that one
  /// goes through the machine, which raises the pressure; under pressure every event does.
  @Test func thePressureIsRaisedAtBufferLimitExactly() {
    var machine = machine(maxConcurrent: 1, bufferLimit: 4)
    _ = machine.eventReceived(0)
    #expect(take(&machine, worker: 0) == 0)
    #expect(send(1) && send(2), "room for bufferLimit - 1 waiting events, counted with 0")
    #expect(!send(3), "the room was counted before 0 was taken: it errs on the safe side")
    #expect(machine.eventReceived(3).pressure == nil)
    #expect(!send(4), "the fourth waiting event goes through the machine")
    #expect(machine.eventReceived(4).pressure == true)
    #expect(machine.waiting.count + intake.withLock { $0.events.count } == 4, "behind 0, in the intake")
    #expect(!send(5), "under pressure: no room")
    #expect(machine.eventReceived(5).pressure == nil)
    // Taking down to bufferLimit / 2 releases it (before that take) and opens the intake again.
    var releases = false
    var nextEvents: [Int] = []
    for sequence in 0..<2 {
      _ = machine.finished(sequence, sequence: sequence, worker: 0, downstreamPressured: false, releases: &releases)
      guard
        case .done(_, .event(_, let input)) = machine.nextDelivery(
          worker: 0,
          downstreamPressured: false,
          releases: &releases
        )
      else { break }
      nextEvents.append(input)
    }
    #expect(!releases && nextEvents == [1, 2], "3 waiting")
    _ = machine.finished(2, sequence: 2, worker: 0, downstreamPressured: false, releases: &releases)
    guard case .done(_, .again) = machine.nextDelivery(worker: 0, downstreamPressured: false, releases: &releases)
    else { return #expect(Bool(false), "the release, before the take that leaves 2 waiting") }
    #expect(releases)
    #expect(take(&machine, worker: 0) == 3)
    #expect(machine.waiting.count == 2)
    #expect(intake.withLock { $0.isOpen && $0.room == 0 }, "open, its room counted before that take")
    #expect(!send(6) && machine.eventReceived(6).pressure == nil)
  }

  @Test func disposeCountsAndForgetsTheIntakesEvents() {
    var machine = machine(maxConcurrent: 1)
    _ = machine.eventReceived(0)
    #expect(send(1) && send(2))
    let (_, _, waiting) = machine.disposed()
    #expect(waiting == 3)
    #expect(!send(3) && intake.withLock { $0.events.isEmpty })
  }

  @Test func theEndMovesTheIntakesEventsFirst() {
    var machine = machine(maxConcurrent: 1)
    _ = machine.eventReceived(0)
    #expect(send(1))
    var releases = false
    let endIsDue = machine.endReceived(releases: &releases)
    #expect(!endIsDue, "1 waits: the end is not due")
    #expect(machine.waiting.count == 2 && !send(2))
  }
}
