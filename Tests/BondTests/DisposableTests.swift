import Bond
import Synchronization
import Testing

// Uses Recorder and Tracked from Support/Recorder.swift.

/// A disposable that counts how many times it was disposed (the contract says once is enough,
/// but the containers must not dispose a child twice either).
private final class CountingDisposable: DisposableType {
  private let count = Atomic(0)
  var disposeCount: Int { count.load(ordering: .acquiring) }  // pairs with the releasing add below
  var isDisposed: Bool { disposeCount > 0 }
  func dispose() { count.add(1, ordering: .releasing) }
}

@Suite struct DisposableTests {
  // MARK: - The contract's example (Usage.swift, "Disposables")

  @Test func contractExample() {
    let log = Recorder<Int>()
    let block = BlockDisposable { log.add(1) }
    block.dispose()
    block.dispose()
    #expect(log.items == [1] && block.isDisposed)
    let composite = CompositeDisposable([BlockDisposable { log.add(2) }])
    composite += BlockDisposable { log.add(3) }
    composite.dispose()
    composite.add(BlockDisposable { log.add(4) })
    #expect(log.items == [1, 2, 3, 4])
    let serial = SerialDisposable(otherDisposable: nil)
    serial.otherDisposable = BlockDisposable { log.add(5) }
    serial.dispose()
    serial.otherDisposable = BlockDisposable { log.add(6) }
    #expect(log.items == [1, 2, 3, 4, 5, 6])
    do {
      let bag = DisposeBag()
      bag += BlockDisposable { log.add(7) }
      BlockDisposable { log.add(8) }.disposeIn(bag)
      bag.add(BlockDisposable { log.add(9) })
    }
    #expect(log.items.suffix(3).sorted() == [7, 8, 9])
  }

  // MARK: - BlockDisposable

  @Test func blockRunsHandlerOnceOnFirstDispose() {
    let log = Recorder<Int>()
    let block = BlockDisposable { log.add(1) }
    #expect(!block.isDisposed)
    #expect(log.items == [])
    block.dispose()
    #expect(block.isDisposed)
    #expect(log.items == [1])
    block.dispose()
    #expect(log.items == [1])
  }

  @Test func blockReleasesHandlerAfterRunning() {
    weak var weakToken: Tracked?
    let log = Recorder<Int>()
    let block: BlockDisposable
    do {
      let token = Tracked()
      weakToken = token
      block = BlockDisposable { withExtendedLifetime(token) { log.add(1) } }
    }
    #expect(weakToken != nil)
    block.dispose()
    #expect(weakToken == nil)
    #expect(log.items == [1])
  }

  @Test func blockReleasesHandlerWhenNeverDisposed() {
    weak var weakToken: Tracked?
    do {
      let token = Tracked()
      weakToken = token
      _ = BlockDisposable { withExtendedLifetime(token) {} }
    }
    #expect(weakToken == nil)
  }

  @Test func blockDisposedFromInsideItsHandler() {
    let log = Recorder<Int>()
    let holder = SerialDisposable()
    let block = BlockDisposable {
      log.add(1)
      holder.otherDisposable?.dispose()  // reentrant: must neither deadlock nor run again
      log.add(2)
    }
    holder.otherDisposable = block
    block.dispose()
    #expect(log.items == [1, 2])
    #expect(block.isDisposed)
  }

  // MARK: - SimpleDisposable

  @Test func simpleDisposableRecordsDisposal() {
    let simple = SimpleDisposable()
    #expect(!simple.isDisposed)
    simple.dispose()
    simple.dispose()
    #expect(simple.isDisposed)
    #expect(SimpleDisposable(isDisposed: true).isDisposed)
  }

  // MARK: - CompositeDisposable

  @Test func compositeDisposesAllOnceAndEmpties() {
    let children = (0..<3).map { _ in CountingDisposable() }
    weak let weakChild = children[0]
    let composite = CompositeDisposable([children[0], children[1]])
    composite.add(children[2])
    #expect(!composite.isDisposed)
    #expect(children.allSatisfy { $0.disposeCount == 0 })
    composite.dispose()
    composite.dispose()
    #expect(composite.isDisposed)
    #expect(children.map(\.disposeCount) == [1, 1, 1])
    _ = consume children
    #expect(weakChild == nil, "the composite releases its children when disposed")
  }

  @Test func compositeDisposesLateAdditionsAtOnceWithoutKeepingThem() {
    let composite = CompositeDisposable()
    composite.dispose()
    weak var weakLate: CountingDisposable?
    do {
      let late = CountingDisposable()
      weakLate = late
      composite += late
      #expect(late.disposeCount == 1)
    }
    #expect(weakLate == nil)
  }

  @Test func compositeChildMayAddToItDuringDispose() {
    let log = Recorder<Int>()
    let composite = CompositeDisposable()
    composite.add(
      BlockDisposable {
        log.add(1)
        composite.add(BlockDisposable { log.add(2) })  // the composite is disposed: runs at once
        composite.dispose()  // reentrant: harmless
      }
    )
    composite.dispose()
    #expect(log.items == [1, 2])
  }

  // MARK: - SerialDisposable

  @Test func serialReplacingDisposesTheOldOne() {
    let first = CountingDisposable()
    let second = CountingDisposable()
    let serial = SerialDisposable(otherDisposable: first)
    #expect(serial.otherDisposable === first)
    serial.otherDisposable = second
    #expect(first.disposeCount == 1)
    #expect(second.disposeCount == 0)
    #expect(serial.otherDisposable === second)
    serial.otherDisposable = nil
    #expect(second.disposeCount == 1)
    #expect(serial.otherDisposable == nil)
    #expect(!serial.isDisposed)
  }

  @Test func serialSettingTheSameOneAgainDoesNotDisposeIt() {
    let only = CountingDisposable()
    let serial = SerialDisposable(otherDisposable: only)
    serial.otherDisposable = only
    #expect(only.disposeCount == 0)
    serial.dispose()
    #expect(only.disposeCount == 1)
  }

  @Test func serialDisposeDisposesCurrentAndLaterOnes() {
    let current = CountingDisposable()
    let serial = SerialDisposable(otherDisposable: current)
    serial.dispose()
    serial.dispose()
    #expect(serial.isDisposed)
    #expect(current.disposeCount == 1)
    #expect(serial.otherDisposable == nil)
    weak var weakLate: CountingDisposable?
    do {
      let late = CountingDisposable()
      weakLate = late
      serial.otherDisposable = late
      #expect(late.disposeCount == 1)
      #expect(serial.otherDisposable == nil)
    }
    #expect(weakLate == nil, "a disposable set after dispose is not kept")
    #expect(current.disposeCount == 1)
  }

  @Test func serialReleasesReplacedOne() {
    let serial = SerialDisposable()
    weak var weakOld: CountingDisposable?
    do {
      let old = CountingDisposable()
      weakOld = old
      serial.otherDisposable = old
    }
    #expect(weakOld != nil)
    serial.otherDisposable = SimpleDisposable()
    #expect(weakOld == nil)
  }

  @Test func serialChildMayReplaceDuringItsDisposal() {
    let log = Recorder<Int>()
    let serial = SerialDisposable()
    serial.otherDisposable = BlockDisposable {
      log.add(1)
      serial.otherDisposable = BlockDisposable { log.add(2) }  // reentrant, no deadlock
    }
    serial.otherDisposable = nil  // disposes the first, which installs the second
    #expect(log.items == [1])
    serial.dispose()
    #expect(log.items == [1, 2])
  }

  // MARK: - DisposeBag

  @Test func bagDisposesAndEmptiesAndCanBeRefilled() {
    let bag = DisposeBag()
    #expect(!bag.isDisposed, "a new bag is not disposed")
    let first = CountingDisposable()
    let second = CountingDisposable()
    bag += first
    second.disposeIn(bag)
    bag.dispose()
    #expect(bag.isDisposed)
    #expect(first.disposeCount == 1 && second.disposeCount == 1)
    bag.dispose()
    #expect(first.disposeCount == 1 && second.disposeCount == 1, "disposing twice is harmless")

    let third = CountingDisposable()
    bag.add(third)
    #expect(!bag.isDisposed, "adding refills the bag")
    #expect(third.disposeCount == 0, "a refilled bag holds what it is given")
    bag.dispose()
    #expect(bag.isDisposed)
    #expect([first, second, third].map(\.disposeCount) == [1, 1, 1])
  }

  @Test func bagReleasesContentOnDispose() {
    let bag = DisposeBag()
    weak var weakToken: Tracked?
    do {
      let token = Tracked()
      weakToken = token
      bag += BlockDisposable { withExtendedLifetime(token) {} }
    }
    #expect(weakToken != nil)
    bag.dispose()
    #expect(weakToken == nil)
  }

  @Test func bagDeinitDisposesAndReleasesContent() {
    let children = (0..<3).map { _ in CountingDisposable() }
    weak var weakBag: DisposeBag?
    weak let weakChild = children[0]
    do {
      let bag = DisposeBag()
      weakBag = bag
      for child in children { bag += child }
    }
    #expect(weakBag == nil)
    #expect(children.map(\.disposeCount) == [1, 1, 1])
    _ = consume children
    #expect(weakChild == nil)
  }

  @Test func bagDeinitAfterDisposeDoesNotDisposeAgain() {
    let child = CountingDisposable()
    do {
      let bag = DisposeBag()
      bag += child
      bag.dispose()
    }
    #expect(child.disposeCount == 1)
  }

  @Test func bagChildMayAddDuringDispose() {
    let log = Recorder<Int>()
    let bag = DisposeBag()
    bag += BlockDisposable {
      log.add(1)
      bag += BlockDisposable { log.add(2) }  // the bag refills: held, not disposed at once
    }
    bag.dispose()
    #expect(log.items == [1])
    #expect(!bag.isDisposed)
    bag.dispose()
    #expect(log.items == [1, 2])
  }

  @Test func containersNest() {
    let log = Recorder<Int>()
    let bag = DisposeBag()
    let composite = CompositeDisposable([BlockDisposable { log.add(1) }])
    let serial = SerialDisposable(otherDisposable: composite)
    bag += serial
    bag.dispose()
    #expect(log.items == [1])
    #expect(serial.isDisposed && composite.isDisposed)
  }
}
