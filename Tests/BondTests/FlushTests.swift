@testable import Bond
import BondTesting
import Dispatch
import Foundation
import Testing

/// `flush()`: a barrier in the one delivery order, awaited without blocking a thread.
@Suite struct FlushTests {
  /// Four threads send 5,000 events each and return, possibly before a worker has delivered what
  /// they found queued; after `flush()` all 20,000 have been delivered, each thread's in its order.
  @Test func everyEventSentBeforeTheCallIsDelivered() async {
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    producer.observe { log.add($0) }
    await withTaskGroup(of: Void.self) { group in
      for sender in 0..<4 {
        group.addTask { for value in 0..<5_000 { producer.next(sender * 100_000 + value) } }
      }
    }
    await producer.flush()
    #expect(log.count == 20_000)
    for sender in 0..<4 {
      let own = log.items.filter { $0 / 100_000 == sender }
      #expect(own == (0..<5_000).map { sender * 100_000 + $0 }, "sender \(sender)'s order")
    }
  }

  /// The end sent before the call is delivered too; an idle producer returns at once.
  @Test func theEndIsDeliveredAndAnIdleProducerReturnsAtOnce() async {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    await producer.flush()
    #expect(log.items == [])
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for value in 0..<1_000 { producer.next(value) }
        producer.finish()
      }
      group.addTask { for _ in 0..<1_000 { producer.next(-1) } }
    }
    await producer.flush()
    #expect(log.items.last == "end")
    #expect(log.items.filter { $0 != "-1" } == (0..<1_000).map { "\($0)" } + ["end"])
  }

  /// A flush behind a delivery that blocks returns only after it, and at once when its task is
  /// cancelled (the blocked delivery still running).
  @Test func itWaitsForTheHolderAndCancellationResumesItAtOnce() async {
    let producer = EventProducer<Int>()
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let log = Recorder<Int>()
    producer.observe { value in
      if value == 0 {
        entered.signal()
        release.wait()
      }
      log.add(value)
    }
    Thread.detachNewThread { producer.next(0) }  // holds the delivery rights, blocked
    await Task.detached { entered.wait() }.value
    producer.next(1)  // queued behind the blocked delivery
    let cancelled = Task { await producer.flush() }
    // The flush's `.resume` is queued behind event 1: the count = 1 (the holder) + 1 + 1.
    while producer.rights.queuedCount < 3 { await Task.yield() }
    cancelled.cancel()
    await cancelled.value
    #expect(log.count == 0, "the cancelled flush returned while the holder was still blocked")
    let waiting = Task { await producer.flush() }
    while producer.rights.queuedCount < 4 { await Task.yield() }
    release.signal()
    await waiting.value
    #expect(log.items == [0, 1], "the flush returned after the events sent before it")
  }

  /// `Observable.flush()`: every value set before it is delivered; the last delivered is `value`.
  @Test func anObservableDeliversEveryValueSetBeforeIt() async {
    let observable = Observable(0)
    let seen = Recorder<Int>()
    observable.observe { seen.add($0) }
    await withTaskGroup(of: Void.self) { group in
      for sender in 0..<4 {
        group.addTask { for value in 1...1_000 { observable.value = sender * 10_000 + value } }
      }
    }
    await observable.flush()
    #expect(seen.count == 4_001)
    #expect(seen.items.last == observable.value)
  }

  /// `ObservableArray.flush()`: every mutation made before it has reached the observers as its
  /// event, through both steps (the array's hand-off and its delivery).
  @Test func anObservableArrayDeliversEveryMutationMadeBeforeIt() async {
    let array = ObservableArray<Int>([])
    let inserted = Recorder<Int>()
    let lastCount = Recorder<Int>()
    array.observe { event in
      if case .insert(let elements, _) = event.operation { for element in elements { inserted.add(element) } }
      lastCount.add(event.sequence.count)
    }
    await withTaskGroup(of: Void.self) { group in
      for sender in 0..<4 {
        group.addTask { for value in 0..<2_000 { array.append(sender * 10_000 + value) } }
      }
    }
    await array.flush()
    #expect(inserted.count == 8_000)
    #expect(lastCount.items.last == 8_000)
    await array.flush()  // idle: at once
  }
}
