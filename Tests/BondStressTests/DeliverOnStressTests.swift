import Bond
import Foundation
import Synchronization
import Testing

/// deliverOn, throttle and debounce on real queues, fed by racing threads.
/// Run under `swift test --sanitize=thread --filter DeliverOnStressTests`.
@Suite struct DeliverOnStressTests {
  struct Stamp: Sendable, Equatable {
    let thread: Int
    let sequence: Int
  }
  /// An object captured by observers, to check through a weak reference that it is released.
  final class Token: Sendable {}

  /// Lets every block already submitted to `queue` (and a drain it rescheduled) finish.
  private func settle(_ queue: DispatchQueue) {
    for _ in 0..<3 { queue.sync(flags: .barrier) {} }
  }

  @Test func concurrentQueueFourSendersNothingLostPerThreadOrderNoOverlap() {
    let threads = 4
    let perThread = 20_000 * stressScale
    let queue = DispatchQueue(label: "stress.deliverOn", attributes: .concurrent)
    let source = EventProducer<Stamp>()
    let overlap = OverlapDetector()
    let total = Counter()
    // Touched only by deliveries, which never overlap (checked) and hand over through a lock.
    var delivered: [Stamp] = []
    let done = DispatchSemaphore(value: 0)
    let observation = source.deliverOn(queue).observe { stamp in
      overlap.enter()
      delivered.append(stamp)
      overlap.leave()
      total.increment()
      if total.count == threads * perThread { done.signal() }
    }
    runTogether(threads: threads) { thread in
      for sequence in 0..<perThread { source.next(Stamp(thread: thread, sequence: sequence)) }
    }
    #expect(done.wait(timeout: .now() + 60) == .success)
    settle(queue)
    observation.dispose()
    #expect(overlap.count == 0)
    #expect(delivered.count == threads * perThread)
    for thread in 0..<threads {
      let complete = delivered.filter { $0.thread == thread }.map(\.sequence) == Array(0..<perThread)
      #expect(complete, "thread \(thread): every event, in the order it sent them")
    }
    #expect(source.observerCount == 0)
  }

  @Test func boundedUnderRaceKeepsOrderAndAccountsForEveryEvent() {
    let threads = 4
    let perThread = 10_000 * stressScale
    let queue = DispatchQueue(label: "stress.deliverOn.bounded", attributes: .concurrent)
    let source = EventProducer<Stamp>()
    let statistics = DeliveryStatistics()
    let overlap = OverlapDetector()
    var delivered: [Stamp] = []
    let observation = source.deliverOn(queue, bufferLimit: 64, whenFull: .dropOldest, statistics: statistics)
      .observe { stamp in
        overlap.enter()
        delivered.append(stamp)
        overlap.leave()
      }
    runTogether(threads: threads) { thread in
      for sequence in 0..<perThread { source.next(Stamp(thread: thread, sequence: sequence)) }
    }
    let sent = threads * perThread
    let settled = waitUntil {
      var count = 0
      queue.sync(flags: .barrier) { count = delivered.count }
      return count + statistics.droppedCount == sent
    }
    #expect(settled)
    settle(queue)
    observation.dispose()
    #expect(overlap.count == 0)
    #expect(delivered.count + statistics.droppedCount == sent)
    for thread in 0..<threads {
      let sequences = delivered.filter { $0.thread == thread }.map(\.sequence)
      let inOrder = sequences == sequences.sorted()
      #expect(inOrder, "dropping never reorders")
    }
    // dropOldest never drops the newest event: the last one sent (some thread's last) is delivered last.
    #expect(delivered.last?.sequence == perThread - 1)
  }

  @Test func disposeRacingDeliveryStartsNoNewDeliveryAndReleasesTheObserver() {
    let queue = DispatchQueue(label: "stress.deliverOn.dispose", attributes: .concurrent)
    let late = Counter()
    for _ in 0..<(200 * stressScale) {
      let source = EventProducer<Int>()
      let deliveries = Counter()
      let stop = Atomic<Bool>(false)
      weak var weakCaptured: Token?
      var observation: (any DisposableType)?
      do {
        let captured = Token()
        weakCaptured = captured
        observation = source.deliverOn(queue).observe { _ in
          _ = captured
          deliveries.increment()
        }
      }
      let sender = Thread {
        var value = 0
        while !stop.load(ordering: .relaxed) {
          source.next(value)
          value += 1
        }
      }
      sender.start()
      _ = waitUntil { deliveries.count > 0 }
      observation?.dispose()
      // A delivery that had started may still be running; after it, none may start.
      let atDispose = deliveries.count
      stop.store(true, ordering: .relaxed)
      settle(queue)
      if deliveries.count > atDispose + 1 { late.increment() }
      observation = nil
      #expect(waitUntil { weakCaptured == nil })
      #expect(source.observerCount == 0)
    }
    #expect(late.count == 0, "a delivery started after dispose() returned")
  }

  @Test func throttleAndDebounceSerializeConcurrentSendersPerThreadOrder() {
    let threads = 4
    let perThread = 5_000 * stressScale
    let queue = DispatchQueue(label: "stress.throttle", attributes: .concurrent)
    for useThrottle in [true, false] {
      for mode in [ThrottleMode.latest, .leading, .leadingAndLatest] where useThrottle || mode == .latest {
        let source = EventProducer<Stamp>()
        let overlap = OverlapDetector()
        var delivered: [Stamp] = []
        let deliveries = Counter()
        let observer: (Stamp) -> Void = { stamp in
          overlap.enter()
          delivered.append(stamp)
          overlap.leave()
          deliveries.increment()
        }
        let observation =
          useThrottle
          ? source.throttle(seconds: 0.0005, scheduler: queue, mode: mode).observe(observer)
          : source.debounce(seconds: 0.0005, scheduler: queue).observe(observer)
        runTogether(threads: threads) { thread in
          for sequence in 0..<perThread {
            source.next(Stamp(thread: thread, sequence: sequence))
            if sequence % 500 == 0 { usleep(600) }  // some silences, so debounce delivers too
          }
        }
        // The last window or wait ends: an outcome, waited for (a loaded machine runs the timer late).
        #expect(waitUntil { deliveries.count > 0 }, "nothing delivered")
        withWatchdog("throttleAndDebounceSerializeConcurrentSendersPerThreadOrder", seconds: 60) {
          waitUntilQuiet { deliveries.count }
        }
        settle(queue)
        observation.dispose()
        settle(queue)
        #expect(overlap.count == 0)
        #expect(!delivered.isEmpty)
        for thread in 0..<threads {
          let sequences = delivered.filter { $0.thread == thread }.map(\.sequence)
          let inOrderOnce = sequences == sequences.sorted() && Set(sequences).count == sequences.count
          #expect(inOrderOnce, "throttle: \(useThrottle), mode \(mode), thread \(thread): \(sequences.prefix(40))")
        }
        #expect(source.observerCount == 0)
      }
    }
  }

  @Test func throttleDisposeRacingWindowEndsReleasesEverything() {
    let queue = DispatchQueue(label: "stress.throttle.dispose", attributes: .concurrent)
    let late = Counter()
    for iteration in 0..<(200 * stressScale) {
      let source = EventProducer<Int>()
      let deliveries = Counter()
      weak var weakCaptured: Token?
      var observation: (any DisposableType)?
      do {
        let captured = Token()
        weakCaptured = captured
        let observer: (Int) -> Void = { _ in
          _ = captured
          deliveries.increment()
        }
        observation =
          iteration.isMultiple(of: 2)
          ? source.throttle(seconds: 0.00005, scheduler: queue, mode: .leadingAndLatest).observe(observer)
          : source.debounce(seconds: 0.00005, scheduler: queue).observe(observer)
      }
      let toDispose = observation!
      let atDisposeBox = Atomic<Int>(0)
      runTogether(threads: 2) { thread in
        if thread == 0 {
          for value in 0..<300 { source.next(value) }
        } else {
          for _ in 0..<100 { sched_yield() }
          toDispose.dispose()
          atDisposeBox.store(deliveries.count, ordering: .relaxed)
        }
      }
      let atDispose = atDisposeBox.load(ordering: .relaxed)
      settle(queue)
      if deliveries.count > atDispose + 1 { late.increment() }
      observation = nil
      #expect(waitUntil { weakCaptured == nil })
      #expect(source.observerCount == 0)
    }
    #expect(late.count == 0)
  }
}
