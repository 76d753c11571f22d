import Foundation
import Testing
@testable import Bond

// Guarantee 3 of CONTRACT.md (last sentence): when a producer is deallocated, every observation of
// it reports `isDisposed == true` (Bond v4). Also: disposing twice is harmless, and
// `observerCount` is exact the moment `dispose()` returns.

/// The operator chains whose observation is an observation of their source.
enum DeallocatedSourceChain: String, CaseIterable, Sendable {
  case map, filter, skip, distinct, reduce, startWith, rewrite, observeNew, mapThenFilterThenSkip
}

@Suite struct DeallocationDisposesTests {
  @Test func eventProducerObservationsReportDisposedWhenTheProducerIsDeallocated() {
    var producer: EventProducer<Int>? = EventProducer(replayLength: 1)
    weak let deallocated = producer
    let received = Recorder<Int>()
    let first = producer!.observe { received.add($0) }
    let second = producer!.observe { _ in }
    producer!.next(1)
    #expect(!first.isDisposed && !second.isDisposed)
    producer = nil
    #expect(deallocated == nil, "an observation does not keep its producer alive")
    #expect(first.isDisposed && second.isDisposed)
    first.dispose()  // harmless once the producer is gone
    #expect(first.isDisposed)
    #expect(received.items == [1])
  }

  @Test func observableObservationsReportDisposedWhenItIsDeallocated() {
    var observable: Observable<Int>? = Observable(0)
    weak let deallocated = observable
    let plain = observable!.observe { _ in }
    let new = observable!.observeNew { _ in }
    observable!.value = 1
    #expect(!plain.isDisposed && !new.isDisposed)
    observable = nil
    #expect(deallocated == nil)
    #expect(plain.isDisposed && new.isDisposed)
  }

  @Test func observableArrayObservationsReportDisposedWhenItIsDeallocated() {
    var array: ObservableArray<Int>? = ObservableArray([1, 2])
    weak let deallocated = array
    let plain = array!.observe { _ in }
    let mapped = array!.mapElements { $0 * 2 }.observe { _ in }
    let filtered = array!.filterElements { $0 > 1 }.observe { _ in }
    array!.append(3)
    #expect(!plain.isDisposed && !mapped.isDisposed && !filtered.isDisposed)
    array = nil
    #expect(deallocated == nil)
    #expect(plain.isDisposed, "the array's own observation")
    #expect(mapped.isDisposed, "mapElements over the array")
    #expect(filtered.isDisposed, "filterElements over the array")
  }

  @Test(arguments: DeallocatedSourceChain.allCases)
  func chainObservationReportsDisposedWhenItsSourceIsDeallocated(_ chain: DeallocatedSourceChain) {
    var source: EventProducer<Int>? = EventProducer(replayLength: 1)
    weak let deallocated = source
    let observation: any DisposableType
    switch chain {
    case .map: observation = source!.map { $0 * 2 }.observe { _ in }
    case .filter: observation = source!.filter { $0 > 0 }.observe { _ in }
    case .skip: observation = source!.skip(1).observe { _ in }
    case .distinct: observation = source!.distinct().observe { _ in }
    case .reduce: observation = source!.reduce(0, +).observe { _ in }
    case .startWith: observation = source!.startWith(-1).observe { _ in }
    case .rewrite: observation = source!.rewrite(7).observe { _ in }
    case .observeNew: observation = source!.map { $0 + 1 }.observeNew { _ in }
    case .mapThenFilterThenSkip: observation = source!.map { $0 + 1 }.filter { $0 > 0 }.skip(1).observe { _ in }
    }
    source!.next(1)
    #expect(!observation.isDisposed)
    source = nil
    #expect(deallocated == nil, "\(chain): the observation does not keep its source alive")
    #expect(observation.isDisposed, "\(chain): the observation of a deallocated source is disposed")
  }

  @Test func deliverOnObservationReportsDisposedWhenItsSourceIsDeallocated() {
    let queue = DispatchQueue(label: "bond.tests.dealloc.deliverOn")
    var source: EventProducer<Int>? = EventProducer()
    weak let deallocated = source
    let observation = source!.deliverOn(queue).observe { _ in }
    source!.next(1)
    queue.sync {}
    #expect(!observation.isDisposed)
    source = nil
    queue.sync {}
    #expect(deallocated == nil)
    #expect(observation.isDisposed)
  }

  @Test func sharedProducerDeallocatedDisposesItsUpstreamObservation() {
    final class Token: Sendable {}
    let source = EventProducer<Int>()
    weak var deallocatedShared: EventProducer<Int>?
    weak var releasedToken: Token?
    do {
      let token = Token()
      releasedToken = token
      let shared = source.map { value in withExtendedLifetime(token) { value + 1 } }.share(replayLength: 1)
      deallocatedShared = shared
      let received = Recorder<Int>()
      let observation = shared.observe { received.add($0) }
      source.next(1)
      #expect(received.items == [2])
      #expect(source.observerCount == 1, "the shared producer observes its upstream once")
      observation.dispose()
    }
    #expect(deallocatedShared == nil, "no observer and no reference left: the shared producer is gone")
    #expect(source.observerCount == 0, "its upstream observation was disposed with it")
    #expect(releasedToken == nil, "and the chain's closures released")
  }

  @Test func bindingReportsDisposedWhenItsTargetIsDeallocated() {
    let source = EventProducer<Int>()
    var target: Observable<Int>? = Observable(0)
    weak let deallocated = target
    let binding = source.bindTo(target!)
    source.next(1)
    #expect(target!.value == 1)
    #expect(!binding.isDisposed)
    target = nil
    #expect(deallocated == nil)
    source.next(2)  // the binding ends at the latest at the first event after its target is gone
    #expect(binding.isDisposed)
    #expect(source.observerCount == 0)
  }

  @Test func disposingTwiceIsHarmless() {
    let producer = EventProducer<Int>()
    let received = Recorder<Int>()
    let first = producer.observe { received.add($0) }
    let second = producer.observe { _ in }
    let third = producer.map { $0 }.observe { _ in }
    #expect(producer.observerCount == 3)
    first.dispose()
    #expect(producer.observerCount == 2)
    first.dispose()
    #expect(producer.observerCount == 2, "a second dispose() does not count again")
    third.dispose()
    third.dispose()
    #expect(producer.observerCount == 1)
    producer.next(1)
    #expect(received.items.isEmpty)
    // Twice from inside a delivery, too.
    let inside = producer.observe { _ in }
    let disposer = producer.observe { _ in
      inside.dispose()
      inside.dispose()
    }
    producer.next(2)
    #expect(producer.observerCount == 2, "second and the disposer")
    second.dispose()
    disposer.dispose()
    disposer.dispose()
    #expect(producer.observerCount == 0)

    let array = ObservableArray([1])
    let arrayObservation = array.observe { _ in }
    arrayObservation.dispose()
    arrayObservation.dispose()
    #expect(array.observerCount == 0)
  }

  @Test func observerCountIsExactWhenDisposeReturns() {
    let producer = EventProducer<Int>()
    let other = EventProducer<Int>()
    let observations = (0..<4).map { _ in producer.observe { _ in } }
    #expect(producer.observerCount == 4)
    observations[0].dispose()
    #expect(producer.observerCount == 3, "idle producer")

    // From inside a delivery of the same producer: the observer disposes itself and another one.
    let countsInside = Recorder<Int>()
    let selfBox = Locked<(any DisposableType)?>(nil)
    let selfDisposing = producer.observe { _ in
      selfBox.value?.dispose()
      countsInside.add(producer.observerCount)
      observations[1].dispose()
      countsInside.add(producer.observerCount)
    }
    selfBox.withLock { $0 = selfDisposing }
    #expect(producer.observerCount == 4)
    producer.next(1)
    #expect(countsInside.items == [3, 2])
    #expect(producer.observerCount == 2)

    // From inside a delivery of another producer.
    let countsFromOther = Recorder<Int>()
    let crossing = other.observe { _ in
      observations[2].dispose()
      countsFromOther.add(producer.observerCount)
    }
    other.next(1)
    #expect(countsFromOther.items == [1])
    crossing.dispose()
    observations[3].dispose()
    #expect(producer.observerCount == 0 && other.observerCount == 0)

    let array = ObservableArray([1])
    let arrayObservations = (0..<3).map { _ in array.observe { _ in } }
    arrayObservations[0].dispose()
    #expect(array.observerCount == 2)
    let arrayCounts = Recorder<Int>()
    let arrayDisposer = array.observe { event in
      if case .insert = event.operation {
        arrayObservations[1].dispose()
        arrayCounts.add(array.observerCount)
      }
    }
    array.append(2)
    #expect(arrayCounts.items == [2])
    arrayDisposer.dispose()
    arrayObservations[2].dispose()
    #expect(array.observerCount == 0)
  }
}

/// A value that several closures read and write, under a lock.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value
  init(_ value: Value) { stored = value }
  func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&stored)
  }
  var value: Value { withLock { $0 } }
}
