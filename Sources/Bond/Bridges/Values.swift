extension EventProducerType where Event: Sendable {
  /// An `AsyncStream` of the events observed from now on, the replay included; unbounded buffer.
  ///
  /// The producer is observed when this property is read, not when iteration starts: events sent
  /// in between are buffered. The stream finishes (a `for await` loop ends, after the buffered
  /// events) when the producer ends: it is finished (``EventProducer/finish()``) or deallocated.
  /// Ending the iteration (a `break`, the task cancelled, the stream released) disposes the
  /// observation.
  ///
  /// ```swift
  /// for await value in producer.values { print(value) }
  /// ```
  /// Use ``values(bufferingPolicy:)`` to bound the buffer when the consumer may fall behind.
  @inlinable
  public var values: AsyncStream<Event> {
    values(bufferingPolicy: .unbounded)
  }

  /// An `AsyncStream` of the events observed from now on, the replay included, buffered by
  /// `bufferingPolicy` while the consumer is behind.
  ///
  /// ```swift
  /// for await position in cursor.values(bufferingPolicy: .bufferingNewest(1)) { draw(position) }
  /// ```
  /// - Parameter bufferingPolicy: what to keep when events arrive faster than they are consumed;
  ///   `.bufferingNewest(n)` drops the oldest, `.bufferingOldest(n)` the newest.
  /// - Returns: a stream observing this producer until it is terminated; it finishes when the
  ///   producer ends.
  @inlinable
  public func values(bufferingPolicy: AsyncStream<Event>.Continuation.BufferingPolicy) -> AsyncStream<Event> {
    let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: bufferingPolicy)
    let observation = observe(
      with: EventObserver({ event in continuation.yield(event) }, finished: { continuation.finish() })
    )
    continuation.onTermination = { _ in observation.dispose() }
    return stream
  }
}
