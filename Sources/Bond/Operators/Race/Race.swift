/// The result of ``race(_:)``: the events of the producer of an array that sends first (Rx's
/// `amb`).
///
/// Every producer is observed, in order; the first event to reach the observation's serializer
/// (a replayed one counts: an ``Observable`` wins at once) decides the winner, whose events are
/// forwarded from then on; the others' observations are disposed at once (their `observerCount`
/// drops) and nothing of theirs is delivered after the win. It ends with the winner, or when all
/// of them have ended without sending (an empty array at once). `registered` is forwarded once
/// every producer has registered, or, after the win, once the winner has.
///
/// How: the producers send into one private serializer (an `Inbox`, as `merge(_:)` does), whose
/// single observer decides the winner, so producers sending on several threads at once have
/// exactly one winner.
/// - Note: thread-safe: the producers may send from any threads at once.
public struct Race<Inner: EventProducerType>: EventProducerType {
  public typealias Event = Inner.Event

  /// The producers that race.
  @usableFromInline let producers: [Inner]

  @inlinable
  init(producers: [Inner]) {
    self.producers = producers
  }

  /// The largest of the producers' replay lengths (the winner's is one of them).
  @inlinable
  public var replayLength: Int { producers.map(\.replayLength).max() ?? 0 }

  /// Observes every producer for `observer` until one sends: the events as described above.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let producers = self.producers
    return Inbox<RaceInput<Event>>.observation(pressure: observer.pressure) { inbox in
      let observations = RaceObservations()
      let sink = RaceSink(inbox: inbox, count: producers.count, observations: observations, observer: observer)
      inbox.open { sink.receive($0) }
      let serializer = inbox.serializer
      if producers.isEmpty {
        serializer.next(.ended(0))  // all (none) ended without sending
        return
      }
      let wantsRegistered = observer.registered != nil
      for (index, producer) in producers.enumerated() {
        guard observations.shouldObserve(index) else { continue }
        if inbox.disposables.isDisposed { return }
        let observation = producer.observe(
          with: EventObserver(
            { serializer.next(.event(index, $0)) },
            finished: { serializer.next(.ended(index)) },
            registered: wantsRegistered ? { serializer.next(.registered(index)) } : nil,
            pressure: inbox.pressure
          )
        )
        inbox.disposables.add(observation)
        observations.add(observation, at: index)
      }
    }
  }
}

/// Forwards the producer of `producers` that sends first (a replayed event counts) and stops
/// observing the others; ends with the winner, or when all have ended without sending (an empty
/// array at once). See <doc:RaceGuide>.
///
/// ```swift
/// race([primary, mirror]).observe { show($0) }
/// ```
/// - Returns: a lazy producer of the winner's events. See ``Race``.
@inlinable
public func race<P: EventProducerType>(_ producers: [P]) -> Race<P> {
  Race(producers: producers)
}
