import Testing
@testable import Bond

@Suite struct CombineLatestTests {
  @Test func quick() {
    let a = EventProducer<Int>(), b = EventProducer<String>(), c = EventProducer<Double>()
    let log = Recorder<String>()
    let d = combineLatest(a, b, c).observe { log.add("\($0)\($1)\($2)") }
    a.next(1); b.next("x"); a.next(2); c.next(0.5); b.next("y")
    #expect(log.items == ["2x0.5", "2y0.5"])
    d.dispose()
    #expect(a.observerCount == 0 && b.observerCount == 0 && c.observerCount == 0)
  }
}
