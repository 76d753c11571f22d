import Synchronization

extension EventProducer where Event: Sendable {
  /// Sends each array of `chunks` as one burst, pulling the next array only after the current one
  /// has been delivered to every observer, and returns once the last array is delivered: one `await`
  /// per array, not per event. It never finishes the producer (the end is the caller's
  /// ``finish()``). Cancellation or an error stops it (the error is thrown).
  ///
  /// ```swift
  /// // an async source that reads records 1,024 at a time
  /// try await readings.send(contentsOf: socket.recordChunks)
  /// ```
  ///
  /// A burst keeps its order, and no other sender's event comes between two of its events.
  /// Flow control: before it pulls each array it waits, suspended, while this producer is not
  /// writable (see ``EventProducer/send(_:)``), so a `.backpressure` stage downstream holds at most
  /// its `bufferLimit` plus one array per sender. When this task finds the producer idle it delivers
  /// the whole array at once (one compare-exchange, the deliveries, one subtraction); when another
  /// thread holds the delivery rights, the array is queued behind that thread's work in one lock and
  /// this task is suspended (never spinning, never blocking a thread) until the holder has
  /// delivered it. Cancellation takes effect at once; an array already queued may still be
  /// delivered, whole, in its place in the order. Empty arrays are skipped. See <doc:SendContentsOfGuide>.
  @inlinable
  public func send<Chunks: AsyncSequence>(contentsOf chunks: Chunks) async throws
  where Chunks.Element == [Event] {
    var iterator = chunks.makeAsyncIterator()
    while true {
      // Flow control: waits while this producer is not writable before it pulls each array.
      try await waitUntilWritable()
      guard let chunk = try await iterator.next() else { break }
      try Task.checkCancellation()
      try await sendAwaitingDelivery(burst: chunk)
    }
  }
}
