extension EventProducerType {
  /// Turns this producer (often an operator chain) into one hot ``EventProducer`` that observes
  /// it once, from now on, for as long as the returned producer lives.
  ///
  /// The chain's work (a `map` transform, say) then runs once per event, however many observers
  /// the shared producer has; each of them gets the last `replayLength` events first. The
  /// returned producer holds the upstream observation: releasing it (and every observation of
  /// it, as it is a managed producer) disposes the observation.
  ///
  /// When the upstream ends, the returned producer is finished: its observers receive the end, and a
  /// later observer receives the replay, then the end, at once.
  ///
  /// ```swift
  /// let parsed = lines.map(parse).share(replayLength: 1)
  /// parsed.observe { show($0) }
  /// parsed.observe { store($0) }   // parse runs once per line, not twice
  /// ```
  /// - Parameter replayLength: how many of the last events each new observer receives first.
  /// - Returns: a producer observing this one, made with ``EventProducer/init(replayLength:producer:)``.
  /// - Precondition: `replayLength >= 0`.
  @inlinable
  public func share(replayLength: Int = 0) -> EventProducer<Event> {
    precondition(replayLength >= 0, "share(replayLength:): replayLength must not be negative, got \(replayLength)")
    return EventProducer(
      replayLength: replayLength,
      relaysPressure: true,
      managedBy: { observer in self.observe(with: observer) }
    )
  }
}
