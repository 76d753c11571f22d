import Synchronization

/// What reaches the serializer of a ``Race`` observation; `Int` is the producer's index.
@usableFromInline
enum RaceInput<Event> {
  /// An event of a producer.
  case event(Int, Event)
  /// A producer's registration has ended.
  case registered(Int)
  /// A producer has ended.
  case ended(Int)
}

/// The decisions of one ``Race`` observation: a pure value, called in the serializer's delivery
/// order (never concurrently), one method per ``RaceInput``.
///
/// A loser's event, registration or end queued before the losers were disposed, and anything after
/// the end, are ignored; a producer's registration that ends twice is impossible
/// (`preconditionFailure`).
@usableFromInline
struct RaceStateMachine<Event> {
  @usableFromInline
  enum State {
    /// No producer has sent yet; `live` have not ended.
    case racing(live: Int)
    /// `winner` sent first: only its events are forwarded.
    case won(winner: Int)
    /// Ended: nothing more is delivered.
    case ended
  }

  /// What the sink must do after one input.
  @usableFromInline
  enum Action {
    /// Deliver the event of the winner.
    case deliver(Event)
    /// `winner` has won with `event`: stop observing the others, call `registered` first when
    /// `true` (the winner's registration has ended), then deliver.
    case won(winner: Int, registered: Bool, Event)
    /// Call the observer's `registered`.
    case callRegistered
    /// End the observation (`registered` first, if still due).
    case end
    /// Nothing.
    case ignore
  }

  @usableFromInline var state: State
  /// Which producers' registrations have ended.
  @usableFromInline var registrations: [Bool]
  /// Whether the observer's `registered` has yet to be called.
  @usableFromInline var registeredDue: Bool

  @inlinable
  init(count: Int, registeredDue: Bool) {
    state = .racing(live: count)
    registrations = Array(repeating: false, count: count)
    self.registeredDue = registeredDue
  }

  /// Whether the end comes at once (no producer at all).
  @inlinable
  var endsAtOnce: Bool { registrations.isEmpty }

  /// An event of producer `index` (``RaceInput/event(_:_:)``): the first one wins.
  @inlinable
  mutating func received(_ event: Event, from index: Int) -> Action {
    switch state {
    case .ended:
      return .ignore  // queued before the end disposed the observations
    case .won(let winner):
      return index == winner ? .deliver(event) : .ignore  // a loser's, queued before it was disposed
    case .racing:
      state = .won(winner: index)
      let registered = registeredDue && registrations[index]
      if registered { registeredDue = false }
      return .won(winner: index, registered: registered, event)
    }
  }

  /// Producer `index`'s registration ended (``RaceInput/registered(_:)``).
  @inlinable
  mutating func registrationEnded(_ index: Int) -> Action {
    switch state {
    case .ended:
      return .ignore
    case .racing:
      if registrations[index] {
        preconditionFailure("RaceStateMachine.registrationEnded: producer \(index)'s registration ended twice")
      }
      registrations[index] = true
      guard registeredDue, !registrations.contains(false) else { return .ignore }
      registeredDue = false
      return .callRegistered
    case .won(let winner):
      guard registeredDue, index == winner else { return .ignore }  // a loser's is ignored
      registeredDue = false
      return .callRegistered
    }
  }

  /// Producer `index` ended (``RaceInput/ended(_:)``): the end once every producer has ended with
  /// none sending, or once the winner ends.
  @inlinable
  mutating func ended(_ index: Int) -> Action {
    switch state {
    case .ended:
      return .ignore
    case .racing(let live):
      guard live > 1 else {
        state = .ended
        return .end
      }
      state = .racing(live: live - 1)
      return .ignore
    case .won(let winner):
      guard index == winner else { return .ignore }  // a loser's, queued before it was disposed
      state = .ended
      return .end
    }
  }
}

/// The observations of a ``Race`` observation's producers, by index, and the winner once known:
/// the loop that observes them and the sink that declares the winner may run on two threads, so
/// they meet under a lock; the losers are disposed after it.
@usableFromInline
final class RaceObservations: Sendable {
  @usableFromInline
  struct State {
    @usableFromInline var observations: [Int: any DisposableType] = [:]
    @usableFromInline var winner: Int?
    @inlinable init() {}
  }

  @usableFromInline let state = Mutex(State())

  @inlinable
  init() {}

  /// Whether producer `index` is still to be observed (no other has won).
  @inlinable
  func shouldObserve(_ index: Int) -> Bool {
    state.withLock { $0.winner == nil || $0.winner == index }
  }

  /// Keeps producer `index`'s observation; disposes it at once when another has won meanwhile.
  @inlinable
  func add(_ observation: any DisposableType, at index: Int) {
    let lost = state.withLock { state -> Bool in
      if let winner = state.winner, winner != index { return true }
      state.observations[index] = observation
      return false
    }
    if lost { observation.dispose() }
  }

  /// `winner` has won: disposes every other observation (after the lock).
  @inlinable
  func won(_ winner: Int) {
    let losers = state.withLock { state -> [any DisposableType] in
      state.winner = winner
      let losers = state.observations.filter { $0.key != winner }.map(\.value)
      state.observations = state.observations.filter { $0.key == winner }
      return losers
    }
    for loser in losers { loser.dispose() }
  }
}

/// The single observer of a ``Race`` observation's inbox: it owns the state and calls the
/// observer. The inbox never calls it concurrently, so it needs no lock.
@usableFromInline
final class RaceSink<Event>: InboxSink {
  @usableFromInline let output: InboxSinkOutput<Event, RaceInput<Event>>
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var machine: RaceStateMachine<Event>
  /// The producers' observations, to stop observing the losers.
  @usableFromInline let observations: RaceObservations

  @inlinable
  init(inbox: Inbox<RaceInput<Event>>, count: Int, observations: RaceObservations, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
    registered = observer.registered
    machine = RaceStateMachine(count: count, registeredDue: observer.registered != nil)
    self.observations = observations
  }

  /// Asks the machine the method of `input`, then performs its action.
  @inlinable
  func receive(_ input: RaceInput<Event>) {
    let action =
      switch input {
      case .event(let index, let event): machine.received(event, from: index)
      case .registered(let index): machine.registrationEnded(index)
      case .ended(let index): machine.ended(index)
      }
    switch action {
    case .deliver(let event): output.observer(event)
    case .won(let winner, let registeredNow, let event):
      observations.won(winner)
      if registeredNow { callRegistered() }
      output.observer(event)
    case .callRegistered: callRegistered()
    case .end: end()  // `registered` first, if still due
    case .ignore: break
    }
  }
}
