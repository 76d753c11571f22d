/// How ``EventProducerType/throttle(for:scheduler:mode:)`` picks the events of a window.
public enum ThrottleMode: Sendable, Hashable {
  /// Bond v4 (the default): an event opens a window; at its end the latest event of the window is
  /// delivered. The first event is delayed by up to a window.
  case latest
  /// The event that opens a window is delivered at once; the others of the window are dropped.
  case leading
  /// RxSwift's `throttle(latest: true)`: the event that opens a window is delivered at once; at the
  /// window's end the latest other event of the window, if any, is delivered and opens the next
  /// window.
  case leadingAndLatest
}

extension EventProducerType where Event: Sendable {
  /// Delivers at most one event per window of `seconds` (two for `.leadingAndLatest`), on
  /// `scheduler`, choosing the events by `mode` (``ThrottleMode/latest``, Bond v4's, by default).
  ///
  /// With `.latest`, an event opens a window of `seconds`; at its end the latest event of the
  /// window is delivered on `scheduler`; the next event after that opens the next window. With
  /// `seconds` 0 every event is delivered, in order, on `scheduler`.
  ///
  /// ```swift
  /// searchField.text.throttle(seconds: 0.3, scheduler: .main).observe { query in search(query) }
  /// ```
  ///
  /// | time (s)   | 0 | 0.5 | 1 | 1.1 | 2.1 |
  /// |------------|---|-----|---|-----|-----|
  /// | upstream   | 1 | 2   |   | 3   |     |
  /// | delivered  |   |     | 2 |     | 3   |
  ///
  /// Events at 0, 0.5, 1.5 (values 1, 2, 3), `seconds` 1:
  ///
  /// | mode                | delivered (time: value) |
  /// |---------------------|-------------------------|
  /// | `.latest`           | 1: 2, 2.5: 3            |
  /// | `.leading`          | 0: 1, 1.5: 3            |
  /// | `.leadingAndLatest` | 0: 1, 1: 2, 2: 3        |
  ///
  /// When the upstream ends, the pending event is delivered on `scheduler` at once, then the end.
  /// Disposing drops the pending event (released at once) and cancels the window's end.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @inlinable
  public func throttle<S: Scheduler>(seconds: Double, scheduler: S, mode: ThrottleMode = .latest) -> Throttle<Self, S> {
    precondition(seconds >= 0, "throttle(seconds:scheduler:mode:): seconds must be 0 or more, got \(seconds)")
    return Throttle(upstream: self, seconds: seconds, scheduler: scheduler, mode: mode)
  }
}

/// The producer that ``EventProducerType/throttle(for:scheduler:mode:)`` returns. A light value;
/// each observation has its own windows.
/// - Note: thread-safe to observe from any thread; the upstream may send from several threads;
///   observers are called on the scheduler, one event at a time, in order.
public struct Throttle<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = Upstream.Event

  @usableFromInline let upstream: Upstream
  @usableFromInline let seconds: Double
  @usableFromInline let scheduler: S
  @usableFromInline let mode: ThrottleMode

  @inlinable
  init(upstream: Upstream, seconds: Double, scheduler: S, mode: ThrottleMode) {
    self.upstream = upstream
    self.seconds = seconds
    self.scheduler = scheduler
    self.mode = mode
  }

  /// The most events the registration can deliver: the upstream's replay, thinned by the windows.
  @inlinable
  public var replayLength: Int {
    if seconds == 0 { return upstream.replayLength }
    return Swift.min(upstream.replayLength, mode == .leadingAndLatest ? 2 : 1)
  }

  /// Registers `observer`, called on the scheduler with the throttled events; `registered` right
  /// after the events that come from the registration (the upstream's replay, see
  /// `ThrottleStateMachine`). When the upstream ends, the pending event is delivered at once (not at
  /// its window's end), then `finished`.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    // With no window every event goes through: a plain delivery on the scheduler.
    guard seconds > 0 else { return upstream.deliverOn(scheduler).observe(with: observer) }
    let machine = ThrottleStateMachine<Event>(mode: mode)
    return TimedSink.observe(upstream, with: observer, on: scheduler, seconds: seconds, machine: machine)
  }
}
