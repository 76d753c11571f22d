import Testing
@testable import Bond

@Suite struct RewriteTests {
  @Test func replacesEveryEventIncludingTheReplay() {
    let producer = EventProducer<Int>(replayLength: 1)
    producer.next(1)
    let rewritten = producer.rewrite("tap")
    #expect(rewritten.replayLength == 1)
    let log = Recorder<String>()
    let observation = rewritten.observe({ log.add($0) }, registered: { log.add("registered") })
    producer.next(2)
    #expect(log.items == ["tap", "registered", "tap"])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func disposingReleasesTheValue() {
    let producer = EventProducer<Int>()
    weak var weakValue: Tracked?
    var observation: (any DisposableType)?
    do {
      let value = Tracked()
      weakValue = value
      observation = producer.rewrite(value).observe { _ in }
    }
    // The observation holds the value (the lazy view itself is gone).
    #expect(weakValue != nil)
    observation?.dispose()
    #expect(weakValue == nil)
    #expect(producer.observerCount == 0)
  }
}
