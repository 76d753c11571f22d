extension EventProducerType where Event: Sendable {
  /// The events observed from now on, the replay included, as an `AsyncSequence`: one event per
  /// `await`, bounded and lossless. The same as `values(bufferLimit: 1_024)`.
  ///
  /// ```swift
  /// for await value in producer.values { print(value) }
  /// ```
  ///
  /// At most 1,024 events wait for the consumer: a fuller buffer puts the producer under pressure
  /// (not writable; async senders wait) until the consumer has taken it down to 512, so nothing is
  /// dropped and a consumer that falls behind slows its producer instead of growing a buffer (see
  /// ``values(bufferLimit:whenFull:)``). For a buffer without a limit, ask for it by name:
  /// ``values(bufferingPolicy:)`` with `.unbounded`.
  @inlinable
  public var values: Values<Event> {
    values(bufferLimit: 1_024)
  }

  /// The events observed from now on, the replay included, as an `AsyncSequence`: one event per
  /// `await`, at most `bufferLimit` of them waiting.
  ///
  /// ```swift
  /// for await order in orders.values(bufferLimit: 256) { try await ship(order) }
  /// for await position in cursor.values(bufferLimit: 1, whenFull: .dropOldest) { draw(position) }
  /// ```
  ///
  /// The machinery of ``batchedValues(maxCount:bufferLimit:whenFull:)``, taken one event at a
  /// time. With `whenFull: .backpressure` (the default), a buffer holding `bufferLimit` events puts
  /// the producer under pressure (not writable; ``EventProducer/send(_:)`` and
  /// ``EventProducer/send(contentsOf:)-(Sequence)`` wait) until the consumer has taken it down to
  /// `bufferLimit / 2`: nothing is dropped, and `next` never blocks (it can overfill the buffer by
  /// what synchronous senders send under pressure). `.dropOldest` keeps the freshest `bufferLimit`
  /// events, `.dropNewest` the earliest; dropping is asked for by name.
  ///
  /// The producer is observed when this method is called, not when iteration starts: events sent
  /// in between are buffered. The sequence ends (`next()` returns `nil`) after the buffered events
  /// once the producer ends: it is finished (``EventProducer/finish()``) or deallocated. Cancelling
  /// the iterating task makes `next()` return `nil` and disposes the observation; so does releasing
  /// the sequence and its iterator (a `break`). One consumer: the sequence is iterated by one task
  /// at a time.
  /// - Precondition: `bufferLimit` is at least 1.
  @inlinable
  public func values(bufferLimit: Int, whenFull policy: DeliveryOverflowPolicy = .backpressure) -> Values<Event> {
    Values(
      consumer: observedBuffer(
        maxCount: 1,
        bufferLimit: bufferLimit,
        policy: policy,
        call: "values(bufferLimit:whenFull:)"
      )
    )
  }

  /// An `AsyncStream` of the events observed from now on, the replay included, buffered by
  /// `bufferingPolicy` while the consumer is behind: the form to ask for by name when the buffer is
  /// to have no limit (`.unbounded`) or when an `AsyncStream` itself is needed.
  ///
  /// ```swift
  /// for await entry in log.values(bufferingPolicy: .unbounded) { archive(entry) }
  /// ```
  ///
  /// It never puts the producer under pressure: `.unbounded` grows with a consumer that falls
  /// behind, `.bufferingNewest(n)` drops the oldest, `.bufferingOldest(n)` the newest. The lossless
  /// bounded form is ``values``.
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

/// The result of ``EventProducerType/values`` and ``EventProducerType/values(bufferLimit:whenFull:)``:
/// an `AsyncSequence` of the events observed, one per `await`, in the producer's order.
/// - Note: `Sendable`; iterate it from one task at a time.
public struct Values<Event: Sendable>: AsyncSequence, Sendable {
  /// One event of the producer.
  public typealias Element = Event
  /// It never throws: cancellation ends it.
  public typealias Failure = Never

  @usableFromInline let consumer: BatchedValuesConsumer<Event>

  @inlinable
  init(consumer: BatchedValuesConsumer<Event>) {
    self.consumer = consumer
  }

  /// The iterator: every iterator of one sequence takes from the same buffer.
  @inlinable
  public func makeAsyncIterator() -> Iterator {
    Iterator(consumer: consumer)
  }

  /// Takes the events out of the buffer one at a time, waiting (suspended) while it is empty.
  public struct Iterator: AsyncIteratorProtocol {
    @usableFromInline let consumer: BatchedValuesConsumer<Event>

    @inlinable
    init(consumer: BatchedValuesConsumer<Event>) {
      self.consumer = consumer
    }

    /// The oldest event waiting, waiting for one if there is none; `nil` once the producer has
    /// ended and every event was returned, or once the task is cancelled.
    @inlinable
    public mutating func next() async -> Event? {
      await consumer.buffer.next { $0.takeOne() }
    }
  }
}
