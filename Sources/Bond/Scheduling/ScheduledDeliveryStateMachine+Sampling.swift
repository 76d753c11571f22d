// Latency sampling in a scheduled delivery's decisions: the timed event's place in the buffer
// follows the events taken out before it, until the drain takes it.

extension ScheduledDeliveryStateMachine {
  /// ``eventReceived(_:endsRegistration:)`` for an event sent at `sampleStart`, to be timed: it is,
  /// if it was taken into the buffer and no other timed event waits there.
  @inlinable
  mutating func eventReceived(_ event: Event, sampleStart: Double) -> ReceiveAction {
    let action = eventReceived(event)
    switch action {
    case .none, .dropped(.none):
      break  // not taken in
    case .queued, .startDrain, .pressure, .dropped(.some):
      // The event is the last in the buffer (a drop took the oldest out before it was pushed).
      if sampleOffset < 0 {
        sampleOffset = buffer.count - 1
        self.sampleStart = sampleStart
      }
    }
    return action
  }

  /// The drain took `count` events from the front of `buffer`: if the timed event is among them,
  /// it becomes ``takenSample`` (the drain reads it with ``takeSample()`` in the same lock).
  @inlinable
  mutating func took(_ count: Int) {
    guard sampleOffset >= 0 else { return }
    if sampleOffset < count {
      takenSample = LatencySample(offset: sampleOffset, start: sampleStart)
      sampleOffset = -1
    } else {
      sampleOffset -= count
    }
  }

  /// The timed event of the drain's last step, if it took one (then forgotten).
  @inlinable
  mutating func takeSample() -> LatencySample? {
    guard let sample = takenSample else { return nil }
    takenSample = nil
    return sample
  }
}

/// A timed event taken by a drain: its offset among the events the drain took in one step, and
/// when it was sent (on the stage's clock).
@usableFromInline
struct LatencySample {
  @usableFromInline let offset: Int
  @usableFromInline let start: Double

  @inlinable
  init(offset: Int, start: Double) {
    self.offset = offset
    self.start = start
  }
}
