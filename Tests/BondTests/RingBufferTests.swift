import Testing
@testable import Bond

@Suite struct RingBufferTests {
  /// Every capacity × count up to 12: the buffer holds the last min(capacity, count) in order.
  @Test func replayBufferKeepsTheLastEventsForEveryCapacityAndCount() {
    for capacity in 0...12 {
      for count in 0...30 {
        var buffer = ReplayBuffer<Int>(capacity: capacity)
        for value in 0..<count { buffer.append(value) }
        let expected = Array((0..<count).suffix(capacity))
        #expect(buffer.elements == expected, "capacity \(capacity), count \(count)")
        #expect(buffer.storage.count == Swift.min(capacity, count), "no eager allocation")
      }
    }
  }

  /// Random push/pop sequences against an array model, with wrap-around and growth.
  @Test func workQueueIsFIFOAcrossGrowthAndWrapAround() {
    var generator = SystemRandomNumberGenerator()
    for round in 0..<200 {
      var queue = WorkQueue<Int>()
      var model: [Int] = []
      var next = 0
      for _ in 0..<Int.random(in: 1...300, using: &generator) {
        if Bool.random(using: &generator) || model.isEmpty {
          queue.push(next)
          model.append(next)
          next += 1
        } else {
          #expect(queue.pop() == model.removeFirst(), "round \(round)")
        }
        #expect(queue.count == model.count)
      }
      while let value = queue.pop() { #expect(value == model.removeFirst()) }
      #expect(model.isEmpty)
    }
  }
}
