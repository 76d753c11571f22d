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
    let latest = LockedState<Upstream.Event?>(nil)
    let upstream = self.upstream
    let trigger = self.trigger
    return Inbox<Bool>.observation(pressure: observer.pressure) { inbox in
      var machine = SampleStateMachine()
      let event = observer.event
      let finished = observer.finished
      inbox.open { isEnd in
        if isEnd {
          if machine.ended() { inbox.end(registered: nil, finished: finished) }
          return
        }
        guard machine.isLive, let value = latest.withLock({ value in value.take() }) else { return }
        event(value)
      }
      let serializer = inbox.serializer
      inbox.disposables.add(
        upstream.observe(
          with: EventObserver(
            { value in latest.withLock { $0 = value } },
            finished: inbox.sender(true),
            registered: nil,
            pressure: inbox.pressure
          )
        )
      )
      if inbox.disposables.isDisposed { return }
      inbox.disposables.add(
        trigger.observe(
          with: EventObserver(
            { _ in serializer.next(false) },
            finished: inbox.sender(true),
            registered: observer.registered,
            pressure: inbox.pressure
          )
        )
      )
    }
  }
}

/// The state of one `sample` observation: whether it has ended. A pure value owned by the
/// observation's serializer.
@usableFromInline
struct SampleStateMachine {
  /// Whether samples are still delivered.
  @usableFromInline var isLive = true

  @inlinable
  init() {}

  /// The upstream or the trigger ended.
  /// - Returns: true the first time: deliver the end now.
  @inlinable
  mutating func ended() -> Bool {
    defer { isLive = false }
    return isLive
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
