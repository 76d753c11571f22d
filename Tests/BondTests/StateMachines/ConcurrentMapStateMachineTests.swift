import Testing

@testable import Bond

/// The machine of a concurrency-limited stage (`map(maxConcurrent:)`, `mapUnordered`, `tryMap`)
/// alone, with no threads and no tasks (workers are numbers, the intake a plain value): the
/// window, the deliverer, the end, the pressure, and the senders' intake (when a sender may leave
/// its event there, how the events reach the workers, how the intake keeps `bufferLimit`'s
/// pressure exact).
@Suite struct ConcurrentMapStateMachineTests {
  typealias Machine = ConcurrentMapStateMachine<Int, Int>

  /// The senders' intake; its lock is the stage's, so here it is a plain value (in a box, so that
  /// the tests need not be `mutating`).
  final class IntakeBox { var value = ConcurrentMapIntake<Int>() }
  let box = IntakeBox()
  var intake: ConcurrentMapIntake<Int> {
    get { box.value }
    nonmutating set { box.value = newValue }
  }

  func machine(maxConcurrent: Int, bufferLimit: Int = 8, ordered: Bool = true) -> Machine {
    Machine(maxConcurrent: maxConcurrent, bufferLimit: bufferLimit, ordered: ordered)
  }

  /// A sender's fast path: whether the intake took `input`.
  func send(_ input: Int) -> Bool { intake.accept(input) }

  /// The slow path: the event through the machine.
  func receive(_ input: Int, _ machine: inout Machine) -> Machine.Actions {
    machine.received(input, intake: &intake)
  }

  /// A worker's next step, as the stage resolves it: with the intake when the machine needs it.
  func step(_ step: Machine.TakeStep, _ machine: inout Machine, pressured: Bool = false) -> Machine.TakeStep {
    guard case .needsIntake = step else { return step }
    return machine.take(downstreamPressured: pressured, intake: &intake)
  }

  /// The event a worker takes, or `nil` when it ends.
  func take(_ machine: inout Machine) -> Int? {
    guard case .event(_, let input) = step(machine.take(downstreamPressured: false), &machine) else { return nil }
    return input
  }

  /// Resolves a delivery step's next take, as the stage does.
  func resolve(_ delivery: Machine.DeliveryStep, _ machine: inout Machine) -> Machine.DeliveryStep {
    guard case .done(let actions, let next) = delivery else { return delivery }
    return .done(actions, next: step(next, &machine))
  }

  /// Finishes `output` and delivers what is ready; returns the results delivered and the worker's
  /// next event.
  func finish(_ output: Int, sequence: Int, _ machine: inout Machine) -> (delivered: [Int], next: Int?) {
    var delivered: [Int] = []
    var delivery = resolve(machine.finished(output, sequence: sequence, downstreamPressured: false), &machine)
    while true {
      switch delivery {
      case .deliver(let value): delivered.append(value)
      case .registered: break
      case .done(_, let next):
        guard case .event(_, let input) = next else { return (delivered, nil) }
        return (delivered, input)
      }
      delivery = resolve(machine.nextDelivery(downstreamPressured: false), &machine)
    }
  }

  @Test func closedUntilMaxConcurrentWorkersLive() {
    var machine = machine(maxConcurrent: 2)
    #expect(!send(0), "no worker lives: the first event goes through the machine")
    #expect(receive(0, &machine).start == 0..<1)
    #expect(!send(1), "one worker of two: the machine starts the second for this event")
    #expect(receive(1, &machine).start == 1..<2)
    #expect(send(2), "both workers live: the intake takes the event")
    #expect(take(&machine) == 0)
    #expect(take(&machine) == 1)
  }

  @Test func aWorkerTakesTheIntakesEventsInOrderOnceTheWaitingOnesAreTaken() {
    var machine = machine(maxConcurrent: 1)
    _ = receive(0, &machine)
    #expect(send(1) && send(2))
    #expect(take(&machine) == 0)
    #expect(finish(0, sequence: 0, &machine) == ([0], 1))
    #expect(finish(1, sequence: 1, &machine) == ([1], 2))
    #expect(send(3), "the worker lives: still open")
    #expect(finish(2, sequence: 2, &machine) == ([2], 3))
    #expect(finish(3, sequence: 3, &machine) == ([3], nil), "nothing left: the worker ends")
    #expect(!send(4), "the last worker closed the intake as it found it empty")
    #expect(receive(4, &machine).start == 1..<2, "the machine starts a worker for it")
  }

  /// An event the intake holds when a worker ends for another reason (the window is full) moves
  /// into the machine, which starts a worker for it when the window moves.
  @Test func aWorkerStoppedByTheWindowMovesTheIntakesEvents() {
    var machine = machine(maxConcurrent: 2)
    _ = receive(0, &machine)
    _ = receive(1, &machine)
    #expect(take(&machine) == 0)
    #expect(take(&machine) == 1)
    #expect(send(2))
    // Worker 1 finishes first: its result waits for 0, the window is full, it ends.
    #expect(finish(10, sequence: 1, &machine) == ([], nil))
    #expect(!send(3), "one worker of two left: closed")
    #expect(machine.waiting.count == 1 && intake.events.isEmpty, "2 moved into the machine")
    #expect(receive(3, &machine).start.isEmpty, "the window is full: no worker yet")
    guard case .deliver(0) = machine.finished(0, sequence: 0, downstreamPressured: false) else {
      return #expect(Bool(false), "0 is delivered first")
    }
    guard case .deliver(10) = machine.nextDelivery(downstreamPressured: false) else {
      return #expect(Bool(false), "then 1's result")
    }
    guard case .done(let actions, .again) = machine.nextDelivery(downstreamPressured: false) else {
      return #expect(Bool(false), "a worker to start first, then worker 0 takes")
    }
    #expect(actions.start == 2..<3, "a worker is started for the second event")
    #expect(take(&machine) == 2)
    #expect(take(&machine) == 3)
  }

  /// The intake never holds the event that brings the waiting events to `bufferLimit`: that one
  /// goes through the machine, which raises the pressure; under pressure every event does.
  @Test func thePressureIsRaisedAtBufferLimitExactly() {
    var machine = machine(maxConcurrent: 1, bufferLimit: 4)
    _ = receive(0, &machine)
    #expect(take(&machine) == 0)
    #expect(send(1) && send(2), "room for bufferLimit - 1 waiting events, counted with 0")
    #expect(!send(3), "the room was counted before 0 was taken: it errs on the safe side")
    #expect(receive(3, &machine).pressure == nil)
    #expect(!send(4), "the fourth waiting event goes through the machine")
    #expect(receive(4, &machine).pressure == true)
    #expect(machine.waiting.count + intake.events.count == 4, "behind 0, in the intake")
    #expect(!send(5), "under pressure: no room")
    #expect(receive(5, &machine).pressure == nil)
    // Taking down to bufferLimit / 2 releases it (before that take) and opens the intake again.
    var nextEvents: [Int] = []
    for sequence in 0..<2 {
      _ = machine.finished(sequence, sequence: sequence, downstreamPressured: false)
      guard case .done(_, .event(_, let input)) = resolve(machine.nextDelivery(downstreamPressured: false), &machine)
      else { break }
      nextEvents.append(input)
    }
    #expect(nextEvents == [1, 2], "3 waiting, no release yet")
    _ = machine.finished(2, sequence: 2, downstreamPressured: false)
    guard case .done(_, .release) = resolve(machine.nextDelivery(downstreamPressured: false), &machine) else {
      return #expect(Bool(false), "the release, before the take that leaves 2 waiting")
    }
    #expect(take(&machine) == 3)
    #expect(machine.waiting.count == 2)
    #expect(intake.isOpen && intake.room == 0, "open, its room counted before that take")
    #expect(!send(6) && receive(6, &machine).pressure == nil)
  }

  @Test func disposeCountsAndForgetsTheIntakesEvents() {
    var machine = machine(maxConcurrent: 1)
    _ = receive(0, &machine)
    #expect(send(1) && send(2))
    let (_, waiting) = machine.disposed(intake: &intake)
    #expect(waiting == 3)
    #expect(!send(3) && intake.events.isEmpty)
    #expect(receive(4, &machine) == Machine.Actions(), "after dispose: ignored")
    #expect(machine.upstreamEnded(intake: &intake) == Machine.Actions(), "the end racing dispose: ignored")
  }

  @Test func theEndMovesTheIntakesEventsFirst() {
    var machine = machine(maxConcurrent: 1)
    _ = receive(0, &machine)
    #expect(send(1))
    #expect(!machine.upstreamEnded(intake: &intake).end, "1 waits: the end is not due")
    #expect(machine.waiting.count == 2 && !send(2))
    #expect(receive(2, &machine) == Machine.Actions(), "after the upstream's end: ignored")
  }

  /// The fast path takes a waiting event without the intake; everything else needs it.
  @Test func aTakeNeedsTheIntakeOnlyOffTheFastPath() {
    var machine = machine(maxConcurrent: 2)
    var intake = ConcurrentMapIntake<Int>()
    _ = machine.received(0, intake: &intake)
    guard case .event(0, 0) = machine.take(downstreamPressured: false) else {
      return #expect(Bool(false), "an event waits and the window has room: taken")
    }
    guard case .needsIntake = machine.take(downstreamPressured: false) else {
      return #expect(Bool(false), "nothing waits: the intake may hold events")
    }
    _ = machine.received(1, intake: &intake)
    guard case .needsIntake = machine.take(downstreamPressured: true) else {
      return #expect(Bool(false), "the downstream is under pressure: the worker pauses")
    }
    #expect(machine.workers == 2, "asking changed nothing")
    guard case .pause = machine.take(downstreamPressured: true, intake: &intake) else {
      return #expect(Bool(false), "it pauses")
    }
    #expect(machine.workers == 1 && !intake.isOpen)
  }

  @Test func unorderedResultsComeAsTheyFinishAndTheEndAfterTheLast() {
    var machine = machine(maxConcurrent: 2, ordered: false)
    _ = receive(0, &machine)
    _ = receive(1, &machine)
    #expect(take(&machine) == 0 && take(&machine) == 1)
    #expect(!machine.upstreamEnded(intake: &intake).end)
    #expect(finish(11, sequence: 1, &machine) == ([11], nil), "1 first: delivered at once")
    guard case .deliver(10) = machine.finished(10, sequence: 0, downstreamPressured: false) else {
      return #expect(Bool(false), "then 0")
    }
    guard case .done(_, .needsIntake) = machine.nextDelivery(downstreamPressured: false) else {
      return #expect(Bool(false), "nothing left: the deliverer asks for an event")
    }
    guard case .end = machine.take(downstreamPressured: false, intake: &intake) else {
      return #expect(Bool(false), "the last worker delivers the end")
    }
    #expect(machine.isOver)
  }

  @Test func registeredComesAfterTheRegistrationsResults() {
    var machine = machine(maxConcurrent: 1)
    _ = receive(0, &machine)
    machine.registrationEnded(intake: &intake)
    #expect(take(&machine) == 0)
    guard case .deliver(0) = machine.finished(0, sequence: 0, downstreamPressured: false),
      case .registered = machine.nextDelivery(downstreamPressured: false)
    else { return #expect(Bool(false), "the registration's result, then registered") }
    guard case .done = machine.nextDelivery(downstreamPressured: false) else {
      return #expect(Bool(false), "registered once")
    }
  }

  @Test func theUpstreamEndingTwiceStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = ConcurrentMapStateMachine<Int, Int>(maxConcurrent: 1, bufferLimit: 8, ordered: true)
      var intake = ConcurrentMapIntake<Int>()
      _ = machine.received(0, intake: &intake)
      _ = machine.upstreamEnded(intake: &intake)
      _ = machine.upstreamEnded(intake: &intake)
    }
    #expect(exitTestStandardError(result).contains("ConcurrentMapStateMachine.upstreamEnded"))
  }

  @Test func aResultWithNoTransformRunningStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = ConcurrentMapStateMachine<Int, Int>(maxConcurrent: 1, bufferLimit: 8, ordered: true)
      _ = machine.finished(0, sequence: 0, downstreamPressured: false)
    }
    #expect(exitTestStandardError(result).contains("ConcurrentMapStateMachine.finished"))
  }
}
