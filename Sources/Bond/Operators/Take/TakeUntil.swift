/// The result of ``EventProducerType/take(until:)``: the events of `Upstream` until `Trigger` sends
/// its first event, then the end.
///
/// The trigger is observed first, so a replayed trigger event (an ``Observable``'s value) ends the
/// stream at once, without observing the upstream. The trigger's end alone ends nothing. At the end
/// both observations are disposed at once (their `observerCount` drops), then the end is delivered,
/// once, and nothing after it. The upstream's end passes through.
///
/// How: both sources send into one private serializer (an `Inbox`, as `combineLatest` does), whose
/// single observer delivers; so an event and the trigger racing on two threads are ordered, and
/// the end is delivered exactly once with nothing after it.
/// - Note: thread-safe: the upstream and the trigger may send from any threads at once.
public struct TakeUntil<Upstream: EventProducerType, Trigger: EventProducerType>: EventProducerType {
  /// The producer whose events are delivered.
  @usableFromInline let upstream: Upstream
  /// The producer whose first event ends the stream.
  @usableFromInline let trigger: Trigger

  @inlinable
  init(upstream: Upstream, trigger: Trigger) {
    self.upstream = upstream
    self.trigger = trigger
  }

  /// The upstream's replay length: the most a new observer can receive (none when the trigger
  /// replays an event).
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the trigger, then the upstream, for `observer`: the events as described above;
  /// `registered` once the upstream has registered.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Upstream.Event>) -> any DisposableType {
    let upstream = self.upstream
    let trigger = self.trigger
    return Inbox<TakeUntilInput<Upstream.Event>>.observation(pressure: observer.pressure) { inbox in
      let sink = TakeUntilSink(inbox: inbox, observer: observer)
      inbox.open { sink.receive($0) }
      let serializer = inbox.serializer
      inbox.disposables.add(
        trigger.observe(with: EventObserver({ _ in serializer.next(.triggered) }))
      )
      if inbox.disposables.isDisposed { return }  // the trigger's replay ended it
      inbox.disposables.add(
        upstream.observe(
          with: EventObserver(
            { serializer.next(.event($0)) },
            finished: inbox.sender(.upstreamEnded),
            registered: inbox.sender(observer.registered == nil ? nil : .registered),
            pressure: inbox.pressure  // the trigger sends no event downstream: not put under pressure
          )
        )
      )
    }
  }
}

extension EventProducerType {
  /// Delivers events until `other` sends its first event (a replayed one counts), then ends and
  /// stops observing both. `other`'s end alone ends nothing.
  ///
  /// ```swift
  /// ticks.take(until: screenClosed).observe { render($0) } finished: { print("done") }
  /// ```
  /// - Parameter other: the trigger; any event type.
  /// - Returns: a lazy producer with the same replay length (an upper bound).
  @inlinable
  public func take<Other: EventProducerType>(until other: Other) -> TakeUntil<Self, Other> {
    TakeUntil(upstream: self, trigger: other)
  }
}
