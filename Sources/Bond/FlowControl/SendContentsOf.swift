import Synchronization

extension EventProducer where Event: Sendable {
  /// Sends each element of `sequence`, pulling the next one only after the current one has been
  /// delivered to every observer, and returns once the last one is delivered. It never finishes the
  /// producer: several tasks may send into one producer, and the end is the caller's ``finish()``.
  /// Cancellation or an error stops it (the error is thrown).
  ///
  /// Flow control: before it pulls each element it waits, suspended, while this producer is not
  /// writable (a `.backpressure` stage downstream is under pressure; see ``EventProducer/send(_:)``).
  ///
  /// Cancellation takes effect at once, even while the task waits for another thread's delivery:
  /// the call throws `CancellationError` without waiting for the holder of the delivery rights. An
  /// element it had already queued may still be delivered, in its place in the order.
  ///
  /// ```swift
  /// try await lines.send(contentsOf: file.bytes.lines)
  /// lines.finish()   // when this was the last sender
  /// ```
  ///
  /// Backpressure: when this task takes the delivery rights, the element is delivered before the
  /// call goes on, as with ``next(_:)``. When another thread holds them, the element is queued
  /// behind that thread's work and this task is suspended (not spinning, not blocking a thread)
  /// until the holder has delivered it; the holder resumes it.
  @inlinable
  public func send<Sequence: AsyncSequence>(contentsOf sequence: Sequence) async throws
  where Sequence.Element == Event {
    var iterator = sequence.makeAsyncIterator()
    // Flow control: waits while this producer is not writable before it pulls each element.
    while true {
      try await waitUntilWritable()
      guard let element = try await iterator.next() else { break }
      try Task.checkCancellation()
      try await sendAwaitingDelivery(element)
    }
  }
}
