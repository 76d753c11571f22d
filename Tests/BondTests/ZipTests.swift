import Testing
@testable import Bond

@Suite struct ZipTests {
  @Test func pairsTheNthEvents() {
    let a = EventProducer<Int>()
    let b = EventProducer<String>()
    let log = Recorder<String>()
    a.zipWith(b).observe {
      log.add("\($0.0)\($0.1)")
    } finished: {
      log.add("end")
    }
    a.next(1)
    a.next(2)
    b.next("x")
    a.next(3)
    b.next("y")
    #expect(log.items == ["1x", "2y"])
    b.next("z")
    b.next("w")
    #expect(log.items == ["1x", "2y", "3z"])
    a.finish()  // nothing of a is left unmatched
    #expect(log.items == ["1x", "2y", "3z", "end"])
  }

  @Test func endsOnceTheEndedSourceIsMatched() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<String>()
    let disposable = zip(a, b).observe {
      log.add("\($0.0)\($0.1)")
    } finished: {
      log.add("end")
    }
    a.next(1)
    a.next(2)
    a.finish()
    #expect(log.items == [])
    b.next(7)
    #expect(log.items == ["17"])
    b.next(8)
    #expect(log.items == ["17", "28", "end"])
    #expect(disposable.isDisposed)
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  @Test func endsAtOnceWhenASourceEndsEmpty() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<String>()
    zip(a, b).observe {
      log.add("\($0.0)\($0.1)")
    } finished: {
      log.add("end")
    }
    b.next(1)
    a.finish()
    #expect(log.items == ["end"])
    b.next(2)
    #expect(log.items == ["end"])
  }

  @Test func flatTuplesOfEveryArity() {
    let s = (0..<10).map { _ in EventProducer<Int>() }
    let log = Recorder<String>()
    let three = zip(s[0], s[1], s[2])
    three.observe { log.add("\($0.0)\($0.1)\($0.2)") }
    let ten = zip(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9])
    ten.observe { log.add("\($0.0)\($0.9)") }
    for (index, source) in s.enumerated() { source.next(index) }
    #expect(log.items == ["012", "09"])
  }

  @Test func variadicServesMore() {
    let s = (0..<11).map { _ in EventProducer<Int>() }
    let log = Recorder<Int>()
    let all = zip(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10])
    all.observe { log.add($0.10) }
    for (index, source) in s.enumerated() { source.next(index) }
    #expect(log.items == [10])
  }

  @Test func replay() {
    let a = EventProducer<Int>(replayLength: 2)
    let b = EventProducer<String>(replayLength: 1)
    a.next(1)
    a.next(2)
    b.next("x")
    let log = Recorder<String>()
    a.zipWith(b).observe { log.add("\($0.0)\($0.1)") }
    #expect(log.items == ["1x"])
    b.next("y")
    #expect(log.items == ["1x", "2y"])
  }

  @Test func reentrancyIsQueued() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<String>()
    a.zipWith(b).observe { pair in
      log.add("\(pair.0)\(pair.1)")
      if pair.0 == 1 {
        a.next(2)
        b.next(3)
      }
    }
    a.next(1)
    b.next(1)
    #expect(log.items == ["11", "23"])
  }

  @Test func disposeMidStream() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<String>()
    let disposable = a.zipWith(b).observe {
      log.add("\($0.0)\($0.1)")
    } finished: {
      log.add("end")
    }
    a.next(1)
    b.next(1)
    a.next(2)
    disposable.dispose()
    b.next(2)
    #expect(log.items == ["11"])
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }

  @Test func classesAreReleased() {
    final class Box {}
    let a = EventProducer<Box>()
    let b = EventProducer<Box>()
    weak var weakBox: Box?
    let disposable = a.zipWith(b).observe { _ in }
    do {
      let box = Box()
      weakBox = box
      a.next(box)
      b.next(Box())
    }
    #expect(weakBox == nil)
    disposable.dispose()
  }

  /// Unmatched events, the oldest of a source held in the tuple and the later ones in its queue, are
  /// released with the observation, once each; those matched are delivered in order.
  @Test func unmatchedEventsAreReleasedWithTheObservation() {
    final class Box {
      let value: Int
      init(_ value: Int) { self.value = value }
    }
    let a = EventProducer<Box>()
    let b = EventProducer<Box>()
    let log = Recorder<String>()
    weak var oldest: Box?
    weak var queued: Box?
    var disposable: (any DisposableType)? = a.zipWith(b).observe { log.add("\($0.value)\($1.value)") }
    do {
      a.next(Box(1))
      b.next(Box(1))
      let first = Box(2)
      let second = Box(3)
      (oldest, queued) = (first, second)
      a.next(first)
      a.next(second)
    }
    #expect(oldest != nil && queued != nil)
    b.next(Box(2))
    #expect(oldest == nil && queued != nil)
    disposable?.dispose()
    disposable = nil
    #expect(queued == nil)
    #expect(log.items == ["11", "22"])
  }

  @Test func stateMachine() {
    var machine = ZipStateMachine(sourceCount: 2)
    var empty = ZipStateMachine(sourceCount: 3)
    var inStep = ZipStateMachine(sourceCount: 2)
    defer { [machine, empty, inStep].forEach { $0.deallocate() } }
    var results: [ZipStateMachine.Action] = []
    results.append(machine.eventQueued(position: 0))
    results.append(machine.eventQueued(position: 0))
    results.append(machine.eventQueued(position: 1))  // a pair is complete
    #expect(machine.tupleDelivered() == .moveNext)  // source 0 has one more
    results.append(machine.sourceEnded(position: 0))  // one of its events is still unmatched
    results.append(machine.eventQueued(position: 1))
    #expect(machine.tupleDelivered() == .end)  // the ended source has nothing left
    results.append(machine.sourceEnded(position: 1))  // after the end
    #expect(results == [.ignore, .ignore, .takeTuple, .ignore, .takeTuple, .ignore])
    let registered = [empty.sourceRegistered(), empty.sourceRegistered(), empty.sourceRegistered()]
    #expect(registered == [.ignore, .ignore, .callRegistered])
    let ended = empty.sourceEnded(position: 2)
    let after = empty.eventQueued(position: 0)
    #expect(ended == .end && after == .ignore)
    let completes = [inStep.eventQueued(position: 1), inStep.eventQueued(position: 0)]
    #expect(completes == [.ignore, .takeTuple])
    #expect(inStep.tupleDelivered() == .nothingMore)  // nothing left unmatched, nothing ended
    #expect(inStep.pending(0) == 0 && inStep.pending(1) == 0 && inStep.emptySources == 2)
  }

  @Test func stateMachineStopsWhenASourceEndsTwice() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var machine = ZipStateMachine(sourceCount: 2)
      _ = machine.eventQueued(position: 0)
      _ = machine.sourceEnded(position: 0)
      _ = machine.sourceEnded(position: 0)
    }
    #expect(exitTestStandardError(result).contains("ZipStateMachine.sourceEnded: source 0 ended twice"))
  }

  /// Finite streams rule 4 and guarantee 3: a dispose() from inside the tuple that ends the stream
  /// takes effect at once, so no `finished` follows (issue 17, item 2).
  @Test func disposeInsideTheTupleThatEndsTheStreamIsNotAnEnd() {
    let a = EventProducer<Int>()
    let b = EventProducer<Int>()
    let log = Recorder<String>()
    let holder = SerialDisposable()
    holder.otherDisposable = zip(a, b).observe {
      log.add("\($0.0 + $0.1)")
      holder.dispose()
    } finished: {
      log.add("end")
    }
    a.next(1)
    a.finish()
    b.next(10)
    #expect(log.items == ["11"])
    #expect(a.observerCount == 0 && b.observerCount == 0)
  }
}
