import BondTesting
import Testing

@Suite struct CollectTests {
  // MARK: - collect(count:)

  @Test func arraysOfCountThenThePartialArrayAtTheEnd() {
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    let ends = Recorder<String>()
    source.collect(count: 3).observe {
      arrays.add($0)
    } finished: {
      ends.add("end")
    }
    for value in 1...7 { source.next(value) }
    #expect(arrays.items == [[1, 2, 3], [4, 5, 6]] && ends.items == [])
    source.finish()
    #expect(arrays.items == [[1, 2, 3], [4, 5, 6], [7]] && ends.items == ["end"])
  }

  @Test func neverAnEmptyArrayAtTheEnd() {
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    let ends = Recorder<String>()
    source.collect(count: 2).observe {
      arrays.add($0)
    } finished: {
      ends.add("end")
    }
    source.next(1)
    source.next(2)
    source.finish()
    #expect(arrays.items == [[1, 2]] && ends.items == ["end"])

    let empty = EventProducer<Int>()
    let none = Recorder<[Int]>()
    empty.collect(count: 2).observe { none.add($0) }
    empty.finish()
    #expect(none.items == [])
  }

  @Test func countOneDeliversEachEventAlone() {
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    source.collect(count: 1).observe { arrays.add($0) }
    source.next(1)
    source.next(2)
    #expect(arrays.items == [[1], [2]])
  }

  @Test func replayIsCollectedToo() {
    let source = EventProducer<Int>(replayLength: 4)
    for value in 1...4 { source.next(value) }
    let collected = source.collect(count: 3)
    #expect(collected.replayLength == 1)
    let arrays = Recorder<[Int]>()
    collected.observe { arrays.add($0) }
    #expect(arrays.items == [[1, 2, 3]])
    source.next(5)
    source.next(6)
    #expect(arrays.items == [[1, 2, 3], [4, 5, 6]])
  }

  @Test func eachObserverHasItsOwnArray() {
    let source = EventProducer<Int>()
    let collected = source.collect(count: 2)
    let first = Recorder<[Int]>()
    let second = Recorder<[Int]>()
    collected.observe { first.add($0) }
    source.next(1)
    collected.observe { second.add($0) }
    source.next(2)
    source.next(3)
    #expect(first.items == [[1, 2]] && second.items == [[2, 3]])
  }

  @Test func disposeMidStreamDropsThePartialArray() {
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    let ends = Recorder<String>()
    let observation = source.collect(count: 3).observe {
      arrays.add($0)
    } finished: {
      ends.add("end")
    }
    source.next(1)
    observation.dispose()
    source.next(2)
    source.next(3)
    source.finish()
    #expect(arrays.items == [] && ends.items == [])
    #expect(source.observerCount == 0)
  }

  // MARK: - collect()

  @Test func collectAllDeliversOneArrayAtTheEnd() {
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    let ends = Recorder<String>()
    let collected = source.collect()
    #expect(collected.replayLength == 0)
    collected.observe {
      arrays.add($0)
    } finished: {
      ends.add("end")
    }
    for value in 1...5 { source.next(value) }
    #expect(arrays.items == [])
    source.finish()
    #expect(arrays.items == [[1, 2, 3, 4, 5]] && ends.items == ["end"])
  }

  @Test func collectAllOfAnEmptyStreamIsAnEmptyArray() {
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    source.collect().observe { arrays.add($0) }
    source.finish()
    #expect(arrays.items == [[]])
  }

  // MARK: - Bad input

  @Test func countBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().collect(count: 0)
    }
    #expect(exitTestStandardError(result).contains("collect(count:): count must be at least 1, got 0"))
  }
}

extension CollectTests {
  // MARK: - collect(count:orEvery:scheduler:)

  @Test func anArraySecondsAfterItsFirstEventOrWhenFull() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    let quick = Recorder<[Int]>()
    source.collect(count: 3, orEvery: 1, scheduler: clock).observe { arrays.add($0) }
    source.collect(count: 3, orEvery: .milliseconds(500), scheduler: clock).observe { quick.add($0) }
    source.next(1)
    clock.advance(by: 0.6)
    source.next(2)
    clock.advance(by: 0.55)
    #expect(arrays.items == [[1, 2]] && quick.items == [[1], [2]])
    clock.advance(by: 5)
    #expect(arrays.items == [[1, 2]])  // never an empty array
    source.next(3)
    source.next(4)
    source.next(5)
    clock.advance(by: 0)
    #expect(arrays.items == [[1, 2], [3, 4, 5]])
    clock.advance(by: 5)
    #expect(arrays.items == [[1, 2], [3, 4, 5]])  // the full array's timer is cancelled
  }

  @Test func timedThePartialArrayThenTheEndOnTheQueue() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    source.collect(count: 3, orEvery: 1, scheduler: clock).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    source.next(1)
    source.finish()
    #expect(log.items == [])
    clock.advance(by: 0)
    #expect(log.items == ["[1]", "end"])
    clock.advance(by: 5)
    #expect(log.items == ["[1]", "end"])
  }

  @Test func timedTheEndWithoutEventsIsNoArray() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    source.collect(count: 3, orEvery: 1, scheduler: clock).observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    source.finish()
    clock.advance(by: 2)
    #expect(log.items == ["end"])
  }

  @Test func timedReplay() {
    let clock = TestScheduler()
    let source = EventProducer<Int>(replayLength: 4)
    for value in 1...4 { source.next(value) }
    let arrays = Recorder<[Int]>()
    source.collect(count: 3, orEvery: 1, scheduler: clock).observe { arrays.add($0) }
    clock.advance(by: 0)
    #expect(arrays.items == [[1, 2, 3]])
    clock.advance(by: 1)
    #expect(arrays.items == [[1, 2, 3], [4]])
  }

  @Test func timedDisposeMidStreamDropsThePartialArray() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let arrays = Recorder<[Int]>()
    let observation = source.collect(count: 3, orEvery: 1, scheduler: clock).observe { arrays.add($0) }
    source.next(1)
    clock.advance(by: 0.5)
    observation.dispose()
    source.next(2)
    clock.advance(by: 2)
    #expect(arrays.items == [] && source.observerCount == 0)
  }

  @Test func timedCountBelowOneStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().collect(count: 0, orEvery: 1, scheduler: TestScheduler())
    }
    #expect(
      exitTestStandardError(result).contains("collect(count:orEvery:scheduler:): count must be at least 1, got 0")
    )
  }

  @Test func timedNanSecondsStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = EventProducer<Int>().collect(count: 2, orEvery: .nan, scheduler: TestScheduler())
    }
    #expect(
      exitTestStandardError(result).contains("collect(count:orEvery:scheduler:): seconds must be 0 or more, got nan")
    )
  }

  // MARK: - Disposing inside the last array (issue 17, item 3)

  /// Finite streams rule 4 and guarantee 3: a dispose() from inside the partial array delivered at
  /// the end takes effect at once, so no `finished` follows.
  @Test func disposeInsideThePartialArrayAtTheEndIsNotAnEnd() {
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let holder = SerialDisposable()
    holder.otherDisposable = source.collect(count: 3).observe {
      log.add("\($0)")
      holder.dispose()
    } finished: {
      log.add("end")
    }
    source.next(1)
    source.finish()
    #expect(log.items == ["[1]"])
    #expect(source.observerCount == 0)
  }

  /// The same for `collect()`'s one array.
  @Test func collectAllDisposeInsideTheArrayAtTheEndIsNotAnEnd() {
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let holder = SerialDisposable()
    holder.otherDisposable = source.collect().observe {
      log.add("\($0)")
      holder.dispose()
    } finished: {
      log.add("end")
    }
    source.next(1)
    source.finish()
    #expect(log.items == ["[1]"])
  }

  /// A full array that is not the last one, then a dispose inside it: nothing more, no end.
  @Test func disposeInsideAFullArrayEndsEverything() {
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let holder = SerialDisposable()
    holder.otherDisposable = source.collect(count: 2).observe {
      log.add("\($0)")
      holder.dispose()
    } finished: {
      log.add("end")
    }
    for value in 1...3 { source.next(value) }
    source.finish()
    #expect(log.items == ["[1, 2]"])
  }

  /// The timed form (its end goes through the scheduled delivery, which checks the dispose).
  @Test func timedDisposeInsideThePartialArrayAtTheEndIsNotAnEnd() {
    let clock = TestScheduler()
    let source = EventProducer<Int>()
    let log = Recorder<String>()
    let holder = SerialDisposable()
    holder.otherDisposable = source.collect(count: 3, orEvery: 1, scheduler: clock).observe {
      log.add("\($0)")
      holder.dispose()
    } finished: {
      log.add("end")
    }
    source.next(1)
    source.finish()
    clock.run()
    #expect(log.items == ["[1]"])
    #expect(clock.pendingActionCount == 0)
  }

  /// The observation reports `isDisposed` after the end, as the upstream's does, and a kept
  /// disposable keeps no observer closure alive once disposed.
  @Test func disposedAfterTheEndAndReleasesTheObserverOnDispose() {
    let source = EventProducer<Int>()
    let ended = source.collect(count: 2).observe { _ in }
    source.finish()
    #expect(ended.isDisposed)
    let live = EventProducer<Int>()
    weak var weakCapture: Tracked?
    let kept: any DisposableType
    do {
      let tracked = Tracked()
      weakCapture = tracked
      kept = live.collect(count: 2).observe { _ in _ = tracked }
    }
    #expect(weakCapture != nil && !kept.isDisposed)
    kept.dispose()
    #expect(weakCapture == nil && kept.isDisposed && live.observerCount == 0)
  }
}
