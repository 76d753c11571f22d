extension EventProducer where Event: Sendable {
  /// Sends each element of `sequence`, pulling the next one only after the current one has been
  /// handed to the observers, then finishes this producer at the sequence's end. Cancellation or
  /// an error stops it without finishing (the error is thrown).
  ///
  /// ```swift
  /// try await lines.send(contentsOf: file.bytes.lines)
  /// ```
  public func send<Sequence: AsyncSequence>(contentsOf sequence: Sequence) async throws
  where Sequence.Element == Event {
    var iterator = sequence.makeAsyncIterator()
    while let element = try await iterator.next() {
      try Task.checkCancellation()
      next(element)
    }
    try Task.checkCancellation()
    finish()
  }
}
