import Testing

@testable import Bond

@Suite struct CompactMapTests {
  @Test func dropsNilResults() {
    let producer = EventProducer<String>()
    let log = Recorder<String>()
    producer.compactMap { Int($0) }.observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    for text in ["1", "x", "2"] { producer.next(text) }
    producer.finish()
    #expect(log.items == ["1", "2", "end"])
  }

  @Test func transformsTheReplay() {
    let producer = EventProducer<String>(replayLength: 2)
    producer.next("a")
    producer.next("3")
    let mapped = producer.compactMap { Int($0) }
    #expect(mapped.replayLength == 2)
    let log = Recorder<Int>()
    let observation = mapped.observe { log.add($0) }
    #expect(log.items == [3])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func reentrantSendAndDispose() {
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    let observation = producer.compactMap { $0 % 2 == 0 ? $0 : nil }.observe { log.add($0) }
    producer.observe { value in if value < 4 { producer.next(value + 1) } }
    producer.next(1)
    observation.dispose()
    producer.next(6)
    #expect(log.items == [2, 4])
  }
}
