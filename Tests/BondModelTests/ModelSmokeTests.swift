import PropertyBased
import Testing
import Bond

/// The smallest model check: any sequence of events sent to a producer with replay N reaches a
/// late observer as the model says (the last N, then the rest).
@Suite struct ModelSmokeTests {
  @Test func replayThenLiveMatchesTheModel() async {
    await propertyCheck(input: Gen.int(in: 0...8), Gen.int(in: 0...20), Gen.int(in: 0...20)) { replay, before, after in
      let producer = EventProducer<Int>(replayLength: replay)
      for value in 0..<before { producer.next(value) }
      var seen: [Int] = []
      let observation = producer.observe { seen.append($0) }
      for value in before..<(before + after) { producer.next(value) }
      observation.dispose()
      let model = Array((0..<before).suffix(replay)) + Array(before..<(before + after))
      #expect(seen == model)
    }
  }
}
