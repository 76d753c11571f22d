import Testing

@testable import Bond

@Suite struct ScanTests {
  @Test func emitsTheRunningAccumulationAsReduceDoes() {
    let producer = EventProducer<Int>()
    let sums = Recorder<Int>()
    let reduced = Recorder<Int>()
    producer.scan(0, +).observe { sums.add($0) }
    producer.reduce(0, +).observe { reduced.add($0) }
    for value in [1, 2, 13, 14, 5] { producer.next(value) }
    #expect(sums.items == [1, 3, 16, 30, 35])
    #expect(sums.items == reduced.items)
  }

  @Test func eachObserverStartsFromInitialIncludingTheReplay() {
    let producer = EventProducer<Int>(replayLength: 2)
    producer.next(1)
    producer.next(2)
    let scan = producer.scan("") { $0 + "\($1)" }
    #expect(scan.replayLength == 2)
    let log = Recorder<String>()
    scan.observe(into: log)
    producer.next(3)
    scan.observe(into: log)
    producer.finish()
    #expect(log.items == ["1", "12", "123", "2", "23", "end", "end"])
  }
}
