/// What reaches the serializer of a ``Sample`` observation. (The upstream's events do not: each
/// one only replaces the latest, under the sink's lock.)
@usableFromInline
enum SampleInput {
  /// The trigger has sent an event: sample now.
  case triggered
  /// The upstream or the trigger has ended.
  case ended
}

/// The state of one ``Sample`` observation: a pure value, called in the serializer's delivery
/// order (never concurrently).
@usableFromInline
struct SampleStateMachine {
  @usableFromInline
  enum State {
    /// Each trigger event delivers the latest unsampled upstream event, if any.
    case sampling
    /// Ended: nothing more is delivered.
    case ended
  }

  /// What the sink must do with one input.
  @usableFromInline
  enum Action {
    /// Deliver the latest unsampled upstream event, if there is one.
    case sample
    /// End the observation.
    case end
    /// Nothing.
    case ignore
  }

  @usableFromInline var state = State.sampling

  @inlinable
  init() {}

  /// The trigger sent an event (``SampleInput/triggered``): sample now.
  @inlinable
  mutating func triggered() -> Action {
    switch state {
    case .sampling: return .sample
    case .ended: return .ignore  // queued before the end disposed the trigger
    }
  }

  /// The upstream or the trigger ended (``SampleInput/ended``): the end. Both may end, in any
  /// order: the second end is ignored (no transition of this machine is impossible).
  @inlinable
  mutating func ended() -> Action {
    switch state {
    case .sampling:
      state = .ended
      return .end
    case .ended:
      return .ignore
    }
  }
}

/// The single observer of a ``Sample`` observation's inbox: it owns the state and calls the
/// observer. The inbox never calls it concurrently, so the state needs no lock; the upstream's
/// latest event, written from the upstream's thread, is behind `latest`'s lock, taken out of it
/// before the observer is called.
@usableFromInline
final class SampleSink<Event>: InboxSink {
  @usableFromInline let output: InboxSinkOutput<Event, SampleInput>
  /// Always `nil`: the trigger's registration is the observation's, passed straight through.
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  /// Touched only by `receive`, one call at a time: no runtime exclusivity check.
  @exclusivity(unchecked) @usableFromInline var machine = SampleStateMachine()
  /// The upstream's latest event not sampled yet.
  @usableFromInline let latest = LockedState<Event?>(nil)

  @inlinable
  init(inbox: Inbox<SampleInput>, observer: EventObserver<Event>) {
    output = InboxSinkOutput(inbox: inbox, observer: observer)
  }

  /// Asks the machine the method of `input`, then performs its action.
  @inlinable
  func receive(_ input: SampleInput) {
    let action =
      switch input {
      case .triggered: machine.triggered()
      case .ended: machine.ended()
      }
    switch action {
    case .sample:
      guard let value = latest.withLock({ $0.take() }) else { return }
      output.observer(value)  // after the lock
    case .end:
      end()
    case .ignore:
      break
    }
  }
}
