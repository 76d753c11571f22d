import Testing
@testable import Bond

@Suite struct WithLatestFromTests {
  @Test func timeline() {
    let clicks = EventProducer<Int>()
    let text = EventProducer<String>()
    let log = Recorder<String>()
    clicks.withLatestFrom(text).observe {
      log.add("\($0.0)\($0.1)")
    } finished: {
      log.add("end")
    }
    clicks.next(1)
    text.next("a")
    text.next("b")
    clicks.next(2)
    clicks.next(3)
    text.next("c")
    clicks.next(4)
    #expect(log.items == ["2b", "3b", "4c"])
  }

  @Test func endsWithTheReceiverOnly() {
    let clicks = EventProducer<Int>()
    let text = EventProducer<String>()
    let log = Recorder<String>()
    let disposable = clicks.withLatestFrom(text).observe {
      log.add("\($0.0)\($0.1)")
    } finished: {
      log.add("end")
    }
    text.next("a")
    text.finish()
    clicks.next(1)
    #expect(log.items == ["1a"])
    clicks.finish()
    #expect(log.items == ["1a", "end"])
    #expect(disposable.isDisposed && text.observerCount == 0)
  }

  @Test func replayOfTheOtherIsTheLatest() {
    let clicks = EventProducer<Int>(replayLength: 1)
    let text = EventProducer<String>(replayLength: 1)
    text.next("a")
    clicks.next(1)
    let log = Recorder<String>()
    clicks.withLatestFrom(text).observe { log.add("\($0.0)\($0.1)") }
    #expect(log.items == ["1a"])
  }

  @Test func reentrancy() {
    let clicks = EventProducer<Int>()
    let text = EventProducer<String>()
    let log = Recorder<String>()
    clicks.withLatestFrom(text).observe { pair in
      log.add("\(pair.0)\(pair.1)")
      if pair.0 == 1 {
        text.next("b")
        clicks.next(2)
      }
    }
    text.next("a")
    clicks.next(1)
    #expect(log.items == ["1a", "2b"])
  }

  @Test func disposeMidStream() {
    let clicks = EventProducer<Int>()
    let text = EventProducer<String>()
    let log = Recorder<String>()
    let disposable = clicks.withLatestFrom(text).observe { log.add("\($0.0)\($0.1)") }
    text.next("a")
    clicks.next(1)
    disposable.dispose()
    clicks.next(2)
    #expect(log.items == ["1a"])
    #expect(clicks.observerCount == 0 && text.observerCount == 0)
  }

  @Test func theEndLetsTheOtherGoWithNoFinished() {
    let clicks = EventProducer<Int>()
    let text = EventProducer<String>()
    let disposable = clicks.withLatestFrom(text).observe { _ in }
    clicks.finish()
    #expect(disposable.isDisposed && text.observerCount == 0)
  }
}
