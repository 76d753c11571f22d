extension EventProducerType where Event: Sendable {
  /// The events observed from now on, the replay included, as an `AsyncSequence` of arrays: each
  /// `next()` returns every event that arrived since the previous one (at most `maxCount`), and
  /// waits only when none has. One `await` per array, not per event: a consumer that falls behind
  /// gets bigger arrays, a consumer that keeps up gets the events as they come.
  ///
  /// ```swift
  /// for await rows in readings.batchedValues(maxCount: 1_024) {
  ///   try await database.insert(rows)  // one statement per array
  /// }
  /// ```
  ///
  /// | time      | 0 (observe) | 1   | 2   | 3 (`next()`) | 4   | 5 (`next()`) |
  /// |-----------|-------------|-----|-----|--------------|-----|--------------|
  /// | upstream  |             | a   | b   |              | c   | end          |
  /// | `next()`  |             |     |     | [a, b]       |     | [c], then nil|
  ///
  /// The producer is observed when this method is called, not when iteration starts: events sent
  /// in between are buffered. The sequence ends (`next()` returns `nil`) after the buffered events
  /// once the producer ends. Cancelling the iterating task makes `next()` return `nil` and disposes
  /// the observation; so does releasing the sequence and its iterator (a `break`).
  ///
  /// Flow control: with `whenFull: .backpressure` (the default), a buffer holding `bufferLimit`
  /// events puts the producer under pressure (not writable; async senders wait) until the consumer
  /// has taken it down to `bufferLimit / 2`: nothing is dropped, and `next` never blocks (it can
  /// overfill the buffer by what synchronous senders send under pressure). `.dropOldest` and
  /// `.dropNewest` drop instead. See <doc:BatchedValuesGuide>.
  ///
  /// One consumer: the sequence is iterated by one task at a time.
  /// - Parameters:
  ///   - maxCount: the most events in one array; at least 1.
  ///   - bufferLimit: the most events waiting before the policy applies; at least 1.
  ///   - policy: what a full buffer does (`.backpressure` by default).
  /// - Precondition: `maxCount >= 1` and `bufferLimit >= 1`.
  @inlinable
  public func batchedValues(
    maxCount: Int = 1_024,
    bufferLimit: Int = 1_024,
    whenFull policy: DeliveryOverflowPolicy = .backpressure
  ) -> BatchedValues<Event> {
    let call: StaticString = "batchedValues(maxCount:bufferLimit:whenFull:)"
    precondition(maxCount >= 1, "\(call): maxCount must be at least 1, got \(maxCount)")
    return BatchedValues(
      consumer: observedBuffer(maxCount: maxCount, bufferLimit: bufferLimit, policy: policy, call: call)
    )
  }

  /// Observes the receiver into a new buffer (``batchedValues(maxCount:bufferLimit:whenFull:)``,
  /// ``values(bufferLimit:whenFull:)``): the consumer the sequence holds, whose release disposes
  /// the observation.
  @inlinable
  func observedBuffer(
    maxCount: Int,
    bufferLimit: Int,
    policy: DeliveryOverflowPolicy,
    call: StaticString
  ) -> BatchedValuesConsumer<Event> {
    precondition(bufferLimit >= 1, "\(call): bufferLimit must be at least 1, got \(bufferLimit)")
    let buffer = BatchedValuesBuffer<Event>(maxCount: maxCount, bufferLimit: bufferLimit, policy: policy, call: call)
    buffer.observation.otherDisposable = observe(
      with: EventObserver(
        { buffer.receive($0) },
        finished: { buffer.finish() },
        registered: nil,
        pressure: buffer.gate,
        lifetime: nil
      )
    )
    return BatchedValuesConsumer(buffer: buffer)
  }
}

/// The result of ``EventProducerType/batchedValues(maxCount:bufferLimit:whenFull:)``: an
/// `AsyncSequence` of the arrays of events observed, at most `maxCount` each, never empty.
/// - Note: `Sendable`; iterate it from one task at a time.
public struct BatchedValues<Event: Sendable>: AsyncSequence, Sendable {
  /// An array of consecutive events, in the producer's order.
  public typealias Element = [Event]
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

  /// Takes the arrays out of the buffer, waiting (suspended) while it is empty.
  public struct Iterator: AsyncIteratorProtocol {
    @usableFromInline let consumer: BatchedValuesConsumer<Event>

    @inlinable
    init(consumer: BatchedValuesConsumer<Event>) {
      self.consumer = consumer
    }

    /// The events that arrived since the previous call (at most `maxCount`), waiting for one if
    /// there is none; `nil` once the producer has ended and every event was returned, or once the
    /// task is cancelled.
    @inlinable
    public mutating func next() async -> [Event]? {
      await consumer.buffer.next { $0.take() }
    }
  }
}

/// What the sequence and its iterators hold (``BatchedValues``, ``Values``; not the producer's
/// observer): when the last of them is released, the observation is disposed and the buffer let go.
@usableFromInline
final class BatchedValuesConsumer<Event: Sendable>: Sendable {
  @usableFromInline let buffer: BatchedValuesBuffer<Event>

  @inlinable
  init(buffer: BatchedValuesBuffer<Event>) {
    self.buffer = buffer
  }

  deinit {
    buffer.terminate()  // disposes the observation
  }
}
