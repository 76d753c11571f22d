import Testing
@testable import Bond

@Suite struct WorkQueueTests {
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
