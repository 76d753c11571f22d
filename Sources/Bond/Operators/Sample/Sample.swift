/// The result of ``EventProducerType/sample(_:)``: on each event of a trigger, the upstream's
/// latest event since the previous sample, if there is one.
///
/// ```swift
/// sensor.sample(frames).observe { reading in draw(reading) }
/// ```
///
/// It ends when the upstream or the trigger ends (after what was delivered before); the
/// observation is then disposed. Deliveries are serialized. No allocation per event.
/// - Note: thread-safe: the upstream and the trigger may send from different threads.
public struct Sample<Upstream: EventProducerType, Trigger: EventProducerType>: EventProducerType {
  /// The upstream's events.
  public typealias Event = Upstream.Event

  @usableFromInline let upstream: Upstream
  @usableFromInline let trigger: Trigger

  @inlinable
  init(upstream: Upstream, trigger: Trigger) {
    self.upstream = upstream
    self.trigger = trigger
  }

  /// 0: a sample delivers at most one event, on the trigger's events.
  @inlinable
  public var replayLength: Int { 0 }

  /// Observes the upstream, then the trigger; delivers the upstream's latest unsampled event on
  /// each trigger event; ends when either ends.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let upstream = self.upstream
    let trigger = self.trigger
    return Inbox<SampleInput>.observation(pressure: observer.pressure) { inbox in
      let sink = SampleSink(inbox: inbox, observer: observer)
      inbox.open { sink.receive($0) }
      let latest = sink.latest
      let serializer = inbox.serializer
      inbox.disposables.add(
        upstream.observe(
          with: EventObserver(
            { value in latest.withLock { $0 = value } },
            finished: inbox.sender(.ended),
            registered: nil,
            pressure: inbox.pressure
          )
        )
      )
      if inbox.disposables.isDisposed { return }
      inbox.disposables.add(
        trigger.observe(
          with: EventObserver(
            { _ in serializer.next(.triggered) },
            finished: inbox.sender(.ended),
            // The trigger's registration is the observation's: passed straight through.
            registered: observer.registered,
            pressure: inbox.pressure
          )
        )
      )
    }
  }
}

extension EventProducerType {
  /// On each event of `trigger`, delivers this producer's latest event since the previous sample,
  /// if there is one; ends when this producer or the trigger ends.
  ///
  /// ```swift
  /// text.sample(clicks).observe { print($0) }
  /// ```
  /// - Returns: a lazy producer of `Event`. See ``Sample``.
  @inlinable
  public func sample<Trigger: EventProducerType>(_ trigger: Trigger) -> Sample<Self, Trigger> {
    Sample(upstream: self, trigger: trigger)
  }
}
