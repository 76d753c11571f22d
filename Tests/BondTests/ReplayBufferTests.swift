import Testing
@testable import Bond

@Suite struct ReplayBufferTests {
  /// Every capacity × count up to 12: the buffer holds the last min(capacity, count) in order.
  @Test func replayBufferKeepsTheLastEventsForEveryCapacityAndCount() {
    for capacity in 0...12 {
      for count in 0...30 {
        var buffer = ReplayBuffer<Int>(capacity: capacity)
        for value in 0..<count { buffer.append(value) }
        let expected = Array((0..<count).suffix(capacity))
        #expect((0..<buffer.count).map { buffer[$0] } == expected, "capacity \(capacity), count \(count)")
        #expect(buffer.storage.count == Swift.min(capacity, count), "no eager allocation")
      }
    }
  }
}
