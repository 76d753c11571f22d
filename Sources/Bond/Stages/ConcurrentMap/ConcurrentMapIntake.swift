/// The senders' side of one `map(maxConcurrent:)` / `mapUnordered` / `tryMap` observation: events
/// received and not yet moved into the machine's `waiting` queue, behind a lock of their own, so
/// that a sender does not take the stage's lock (which the workers take twice per event) while a
/// worker is sure to come for its event and the buffer is far from `bufferLimit`.
///
/// - The *fast path*: while `isOpen` and fewer than `room` events wait here, a sender pushes its
///   event here and returns (one lock, which the workers take once per batch, not per event).
/// - Otherwise the sender takes the stage's lock (the *slow path*): the machine puts the event
///   behind the others (in the intake when it holds some), decides the pressure and the workers to
///   start, and opens or closes the intake for the next sender.
/// - A worker that finds the machine's `waiting` queue empty moves the whole intake there in one
///   critical section (nested: the stage's lock, then the intake's; never the other order).
///
/// `isOpen` is `true` only while `maxConcurrent` workers live: the slow path would start no worker
/// for one more event, and each of them takes again after its event (moving the intake when
/// `waiting` is empty). A worker that ends closes the intake and moves its events behind the waiting
/// ones in one critical section, so an event is either there, where the machine decides for it as
/// before the intake (a worker started now, when the window moves, or at the resume after a pause),
/// or sent by the slow path, which does the same.
///
/// `room` keeps the pressure exact: it is set, whenever the machine moves the intake or decides the
/// pressure, to `bufferLimit - 1 - waiting.count`; `waiting` only shrinks until the next such
/// moment, so the events waiting in all stay below `bufferLimit` on the fast path, and the event
/// that reaches it goes through the machine, which raises the stage's gate. Under pressure `room`
/// is 0: every event goes through the machine until the release, so the intake is empty then.
@usableFromInline
struct ConcurrentMapIntake<Input> {
  /// Events received on the fast path, oldest first; all of them after the machine's `waiting`.
  @usableFromInline var events = WorkQueue<Input>()
  /// Whether a sender may leave its event here (see above).
  @usableFromInline var isOpen = false
  /// How many events may wait here before a sender must take the slow path.
  @usableFromInline var room = 0

  @inlinable
  init() {}

  /// The fast path: keeps `input` and returns `true` when the intake is open and has room, else
  /// returns `false` (the sender takes the slow path).
  @inlinable
  mutating func accept(_ input: Input) -> Bool {
    guard isOpen, events.count < room else { return false }
    events.push(input)
    return true
  }
}

extension ConcurrentMapStateMachine {
  /// Moves the intake's events behind the waiting ones and renews `room`.
  @inlinable
  mutating func refill(_ intake: inout ConcurrentMapIntake<Input>) {
    if !intake.events.isEmpty { move(&intake) }
  }

  /// A worker found nothing waiting: moves the intake's events behind, or, when there are none,
  /// closes the intake (the worker ends) in the same critical section.
  @inlinable
  mutating func refillOrClose(_ intake: inout ConcurrentMapIntake<Input>) {
    if intake.events.isEmpty { intake.isOpen = false } else { move(&intake) }
  }

  /// A worker ended, so fewer than `maxConcurrent` live: the intake closes, and its events move
  /// behind the waiting ones, where the machine decides for them as for any (a worker to start,
  /// now or when the window moves, the resume after a pause).
  @inlinable
  mutating func close(_ intake: inout ConcurrentMapIntake<Input>) {
    if !intake.events.isEmpty { move(&intake) }
    intake.isOpen = false
  }

  /// Disposed: closes the intake and lets its events go; returns how many there were.
  @inlinable
  func empty(_ intake: inout ConcurrentMapIntake<Input>) -> Int {
    defer {
      intake.events = WorkQueue()
      intake.isOpen = false
    }
    return intake.events.count
  }

  /// Moves the intake's events behind the waiting ones, in order, and renews `room`.
  @inlinable
  mutating func move(_ intake: inout ConcurrentMapIntake<Input>) {
    if waiting.isEmpty {
      // The whole queue at once; the intake keeps the emptied one's storage.
      swap(&waiting, &intake.events)
    } else {
      while let input = intake.events.pop() { waiting.push(input) }
    }
    pressuredIntake = 0
    intake.room = room
  }

  /// Opens the intake while `maxConcurrent` workers live (the slow path, after it decided: it would
  /// start no worker for one more event), renewing `room`; closes it when fewer live, once the
  /// upstream has ended or the stage is over.
  @inlinable
  func open(_ intake: inout ConcurrentMapIntake<Input>) {
    intake.isOpen = workers == maxConcurrent && state == .open
    intake.room = room
  }

  /// How many events a sender may leave in the intake now: none under pressure (until it is
  /// released every event goes through the machine), else as many as keep the events waiting in
  /// all below `bufferLimit`.
  @inlinable
  var room: Int { underPressure ? 0 : bufferLimit - 1 - waiting.count }
}
