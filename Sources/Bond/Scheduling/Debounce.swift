extension EventProducerType where Event: Sendable {
  /// Delivers an event on `scheduler` only after `seconds` have passed without a newer one.
  ///
  /// Each event replaces the one waiting and restarts the wait; when the wait ends, the waiting
  /// event is delivered. With `seconds` 0 every event is delivered, in order, on `scheduler`.
  ///
  /// ```swift
  /// searchField.text.debounce(seconds: 0.3, scheduler: .main).observe { query in search(query) }
  /// ```
  ///
  /// | time (s)   | 0 | 0.5 | 1.5 | 2 | 2.5 |
  /// |------------|---|-----|-----|---|-----|
  /// | upstream   | 1 | 2   |     | 3 |     |
  /// | delivered  |   |     | 2   |   |     |
  ///
  /// (`seconds` 1; 3 is delivered at 3.) When the upstream ends, the waiting event is delivered on
  /// `scheduler` at once, then the end. Disposing drops the waiting event (released at once) and
  /// cancels its timer.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @inlinable
  public func debounce<S: Scheduler>(seconds: Double, scheduler: S) -> Debounce<Self, S> {
    precondition(seconds >= 0, "debounce(seconds:scheduler:): seconds must be 0 or more, got \(seconds)")
    return Debounce(upstream: self, seconds: seconds, scheduler: scheduler)
  }
}

/// The producer that ``EventProducerType/debounce(for:scheduler:)`` returns. A light value; each
/// observation has its own timer.
/// - Note: thread-safe to observe from any thread; the upstream may send from several threads;
///   observers are called on the scheduler, one event at a time, in order.
public struct Debounce<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = Upstream.Event

  @usableFromInline let upstream: Upstream
  @usableFromInline let seconds: Double
  @usableFromInline let scheduler: S

  @inlinable
  init(upstream: Upstream, seconds: Double, scheduler: S) {
    self.upstream = upstream
    self.seconds = seconds
    self.scheduler = scheduler
  }

  /// The most events the registration can deliver: 1 if the upstream replays (its replay collapses
  /// to its last event), all of them when `seconds` is 0.
  @inlinable
  public var replayLength: Int {
    seconds == 0 ? upstream.replayLength : Swift.min(upstream.replayLength, 1)
  }

  /// Registers `observer`, called on the scheduler with the debounced events; `registered` right
  /// after the event that comes from the registration (the upstream's replay, see
  /// `DebounceStateMachine`). When the upstream ends, the waiting event is delivered at once (not
  /// after its wait), then `finished`.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    // With no window every event goes through: a plain delivery on the scheduler.
    guard seconds > 0 else { return upstream.deliverOn(scheduler).observe(with: observer) }
    return TimedSink.observe(upstream, with: observer, on: scheduler, seconds: seconds, machine: DebounceStateMachine())
  }
}
