import Testing
@testable import Bond

@Suite struct SampleTests {
  @Test func timeline() {
    let clicks = EventProducer<Int>()
    let text = EventProducer<String>()
    let log = Recorder<String>()
    text.sample(clicks).observe {
      log.add($0)
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
    #expect(log.items == ["b", "c"])
  }

  @Test func endsWithTheReceiver() {
    let trigger = EventProducer<Int>()
    let source = EventProducer<String>()
    let log = Recorder<String>()
    let disposable = source.sample(trigger).observe {
      log.add($0)
    } finished: {
      log.add("end")
    }
    source.next("a")
    source.finish()
    trigger.next(1)
    #expect(log.items == ["end"])
    #expect(disposable.isDisposed && trigger.observerCount == 0)
  }

  @Test func endsWithTheTrigger() {
    let trigger = EventProducer<Int>()
    let source = EventProducer<String>()
    let log = Recorder<String>()
    source.sample(trigger).observe {
      log.add($0)
    } finished: {
      log.add("end")
    }
    source.next("a")
    trigger.next(1)
    trigger.finish()
    source.next("b")
    #expect(log.items == ["a", "end"])
    #expect(source.observerCount == 0)
  }

  @Test func replayIsTheLatestUntilSampled() {
    let trigger = EventProducer<Int>()
    let source = EventProducer<String>(replayLength: 2)
    source.next("a")
    source.next("b")
    let log = Recorder<String>()
    source.sample(trigger).observe { log.add($0) }
    trigger.next(1)
    trigger.next(2)
    #expect(log.items == ["b"])
  }

  @Test func reentrancy() {
    let trigger = EventProducer<Int>()
    let source = EventProducer<String>()
    let log = Recorder<String>()
    source.sample(trigger).observe { value in
      log.add(value)
      if value == "a" {
        source.next("b")
        trigger.next(2)
      }
    }
    source.next("a")
    trigger.next(1)
    #expect(log.items == ["a", "b"])
  }

  @Test func disposeMidStream() {
    let trigger = EventProducer<Int>()
    let source = EventProducer<String>()
    let log = Recorder<String>()
    let disposable = source.sample(trigger).observe { log.add($0) }
    source.next("a")
    trigger.next(1)
    disposable.dispose()
    source.next("b")
    trigger.next(2)
    #expect(log.items == ["a"])
    #expect(source.observerCount == 0 && trigger.observerCount == 0)
  }

  @Test func stateMachine() {
    var machine = SampleStateMachine()
    guard case .sample = machine.triggered() else {
      Issue.record("no sample")
      return
    }
    guard case .end = machine.ended() else {
      Issue.record("no end")
      return
    }
    guard case .ignore = machine.ended(), case .ignore = machine.triggered() else {
      Issue.record("acted after the end")
      return
    }
  }
}
