import Testing
@testable import Bond

@Suite struct IgnoreNilTests {
  @Test func dropsNilAndUnwraps() {
    let producer = EventProducer<String?>()
    let seen = Recorder<String>()
    let observation = producer.ignoreNil().observe { seen.add($0) }
    for value in ["a", nil, "b", nil, nil, "c"] as [String?] { producer.next(value) }
    #expect(seen.items == ["a", "b", "c"])
    observation.dispose()
    #expect(producer.observerCount == 0)
  }

  @Test func appliesToTheReplayAndForwardsRegistered() {
    let text = Observable<String?>(nil)
    let log = Recorder<String>()
    let unwrapped = text.ignoreNil()
    #expect(unwrapped.replayLength == 1)
    let observation = unwrapped.observe({ log.add($0) }, registered: { log.add("registered") })
    text.value = "hello"
    #expect(log.items == ["registered", "hello"])
    observation.dispose()
    #expect(text.observerCount == 0)
  }

  @Test func unwrapsOneLevelOnly() {
    let producer = EventProducer<Int??>()
    let seen = Recorder<Int?>()
    let observation = producer.ignoreNil().observe { seen.add($0) }
    producer.next(.some(nil))
    producer.next(nil)
    producer.next(1)
    #expect(seen.items == [nil, 1])
    observation.dispose()
  }
}
