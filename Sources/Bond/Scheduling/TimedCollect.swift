extension EventProducerType where Event: Sendable {
  /// Delivers an array on `scheduler` when `count` events have arrived or `seconds` have passed since
  /// its first event, whichever comes first; never an empty array; at the end, the partial array,
  /// then the end (on `scheduler`).
  ///
  /// ```swift
  /// measurements.collect(count: 500, orEvery: 0.1, scheduler: writer).observe { batch in socket.send(batch) }
  /// ```
  ///
  /// | time (s)  | 0 | 0.6 | 1      | 5 | 5   | 5         |
  /// |-----------|---|-----|--------|---|-----|-----------|
  /// | upstream  | 1 | 2   |        | 3 | 4   | 5         |
  /// | delivered |   |     | [1, 2] |   |     | [3, 4, 5] |
  ///
  /// (`count` 3, `seconds` 1.) Senders may be on several threads: each decision is made under a
  /// lock and the arrays are delivered in decision order. Disposing drops the partial array.
  /// - Precondition: `count` is at least 1; `seconds` is 0 or more (not NaN).
  @inlinable
  public func collect<S: Scheduler>(count: Int, orEvery seconds: Double, scheduler: S) -> TimedCollect<Self, S> {
    precondition(count >= 1, "collect(count:orEvery:scheduler:): count must be at least 1, got \(count)")
    precondition(seconds >= 0, "collect(count:orEvery:scheduler:): seconds must be 0 or more, got \(seconds)")
    return TimedCollect(upstream: self, count: count, seconds: seconds, scheduler: scheduler)
  }

  /// ``collect(count:orEvery:scheduler:)-(_,Double,_)`` with a `Duration`: an array on
  /// `scheduler` when `count` events have arrived or `interval` has passed since its first event.
  ///
  /// ```swift
  /// measurements.collect(count: 500, orEvery: .milliseconds(100), scheduler: writer).observe { send($0) }
  /// ```
  /// - Precondition: `count` is at least 1; `interval` is zero or more.
  @inlinable
  public func collect<S: Scheduler>(count: Int, orEvery interval: Duration, scheduler: S) -> TimedCollect<Self, S> {
    precondition(interval >= .zero, "collect(count:orEvery:scheduler:): interval must be 0 or more, got \(interval)")
    return collect(count: count, orEvery: interval.bondSeconds, scheduler: scheduler)
  }
}

/// The producer that ``EventProducerType/collect(count:orEvery:scheduler:)-(_,Duration,_)`` returns.
/// A light value; each observation has its own array.
/// - Note: thread-safe to observe from any thread; the upstream may send from several threads;
///   observers are called on the scheduler, one array at a time, in decision order.
public struct TimedCollect<Upstream: EventProducerType, S: Scheduler>: EventProducerType
where Upstream.Event: Sendable {
  public typealias Event = [Upstream.Event]

  @usableFromInline let upstream: Upstream
  @usableFromInline let count: Int
  @usableFromInline let seconds: Double
  @usableFromInline let scheduler: S

  @inlinable
  init(upstream: Upstream, count: Int, seconds: Double, scheduler: S) {
    (self.upstream, self.count, self.seconds, self.scheduler) = (upstream, count, seconds, scheduler)
  }

  /// The full arrays of the upstream's replay.
  @inlinable
  public var replayLength: Int { upstream.replayLength / count }

  /// Registers `observer`, called on the scheduler with the arrays; `registered` after the arrays
  /// the registration completed; the end always observed upstream (it delivers the partial array).
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    TimedSink.observe(
      upstream,
      with: observer,
      on: scheduler,
      seconds: seconds,
      machine: TimedCollectStateMachine(count: count)
    )
  }
}
