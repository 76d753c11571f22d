import Bond
import Foundation
import Synchronization
import Testing

/// `throttle`'s path without lock (issue 23): while a window is open an event only replaces the
/// latest (or is dropped) with no lock, while the window's end, an end of the upstream and
/// `dispose()` take the latest back on other threads. Senders flood from several threads while short
/// windows end on a concurrent queue. Run under
/// `swift test --sanitize=thread --filter ThrottleStressTests`. Serialized: two tests count the live
/// `Tracked` events.
@Suite(.serialized) struct ThrottleStressTests {
  struct Stamp: Sendable, Equatable, Hashable {
    let thread: Int
    let sequence: Int
  }

  /// An event that counts its live copies' owners: a slot that leaks or releases twice shows here.
  final class Tracked: Sendable {
    static let live = Atomic<Int>(0)
    let stamp: Stamp
    init(_ stamp: Stamp) {
      self.stamp = stamp
      Self.live.add(1, ordering: .relaxed)
    }
    deinit { Self.live.subtract(1, ordering: .relaxed) }
  }

  /// What the throttle delivered; touched only by its deliveries, which never overlap (checked) and
  /// hand over through the delivery's lock.
  final class Log: @unchecked Sendable {
    var stamps: [Stamp] = []
    var finished = 0
    /// The last event the upstream delivered (written by the upstream's deliveries, never concurrent).
    var lastUpstream: Stamp?
  }

  /// Lets every block already submitted to `queue` (and a drain it rescheduled) finish.
  private func settle(_ queue: DispatchQueue) {
    for _ in 0..<3 { queue.sync(flags: .barrier) {} }
  }

  /// 4 threads flood while windows of 0.1 ms end; then the upstream ends. The last event the
  /// upstream delivered must be the last one the throttle delivers (the pending latest is flushed at
  /// the end), each thread's events come in its order and at most once, `finished` once.
  @Test(arguments: [ThrottleMode.latest, .leading, .leadingAndLatest])
  func floodWhileWindowsEndKeepsTheLatestAndTheOrder(mode: ThrottleMode) {
    withWatchdog("throttleFlood \(mode)", seconds: 300) {
      for _ in 0..<(3 * stressScale) { floodRound(mode: mode) }
    }
  }

  private func floodRound(mode: ThrottleMode) {
    let threads = 4
    let perThread = 20_000 * stressScale
    let queue = DispatchQueue(label: "stress.throttle.flood", attributes: .concurrent)
    let source = EventProducer<Stamp>()
    let overlap = OverlapDetector()
    let log = Log()
    // The upstream's own order: an observer registered first sees each event before the throttle.
    source.observe { log.lastUpstream = $0 }
    let observation = source.throttle(seconds: 0.0001, scheduler: queue, mode: mode).observe { stamp in
      overlap.enter()
      log.stamps.append(stamp)
      overlap.leave()
    } finished: {
      overlap.enter()
      log.finished += 1
      overlap.leave()
    }
    runTogether(threads: threads) { thread in
      for sequence in 0..<perThread { source.next(Stamp(thread: thread, sequence: sequence)) }
    }
    source.finish()
    #expect(waitUntil { queue.sync { log.finished } == 1 })
    settle(queue)
    #expect(observation.isDisposed)
    #expect(overlap.count == 0)
    #expect(log.finished == 1)
    #expect(!log.stamps.isEmpty)
    #expect(Set(log.stamps).count == log.stamps.count, "mode \(mode): an event delivered twice")
    for thread in 0..<threads {
      let sequences = log.stamps.filter { $0.thread == thread }.map(\.sequence)
      #expect(sequences == sequences.sorted(), "mode \(mode), thread \(thread): \(sequences.prefix(40))")
    }
    if mode != .leading {
      // `leading` drops what comes in a window; the others keep the latest and flush it at the end.
      #expect(log.stamps.last == log.lastUpstream, "mode \(mode): the latest event was lost")
    }
  }

  /// An upstream that breaks the contract and calls its observer from several threads at once: the
  /// throttle still delivers each event at most once, each thread's in its order, and releases every
  /// event (a sender that finds another holding the slot decides under the lock; the older slot
  /// event is released when it comes back).
  @Test func unserializedUpstreamDeliversEachEventOnceInEachThreadsOrder() {
    withWatchdog("throttleUnserializedUpstream", seconds: 300) {
      let queue = DispatchQueue(label: "stress.throttle.unserialized", attributes: .concurrent)
      for round in 0..<(4 * stressScale) {
        let mode: ThrottleMode = round.isMultiple(of: 2) ? .latest : .leadingAndLatest
        let upstream = Unserialized<Tracked>()
        let overlap = OverlapDetector()
        let log = Log()
        let observation = upstream.throttle(seconds: 0.0001, scheduler: queue, mode: mode).observe { tracked in
          overlap.enter()
          log.stamps.append(tracked.stamp)
          overlap.leave()
        }
        runTogether(threads: 4) { thread in
          for sequence in 0..<5_000 { upstream.send(Tracked(Stamp(thread: thread, sequence: sequence))) }
        }
        upstream.end()
        #expect(waitUntil { observation.isDisposed })
        settle(queue)
        #expect(overlap.count == 0)
        #expect(!log.stamps.isEmpty)
        #expect(Set(log.stamps).count == log.stamps.count, "round \(round): an event delivered twice")
        for thread in 0..<4 {
          let sequences = log.stamps.filter { $0.thread == thread }.map(\.sequence)
          #expect(sequences == sequences.sorted(), "round \(round), thread \(thread): \(sequences.prefix(40))")
        }
        #expect(waitUntil { Tracked.live.load(ordering: .relaxed) == 0 }, "round \(round): an event kept")
      }
    }
  }

  /// Senders flood events that are objects while windows end and another thread disposes: no
  /// delivery starts after `dispose()` returned (one in flight may end), and every event is released
  /// once the senders have returned (nothing kept in the slot, nothing released twice).
  @Test func disposeRacingTheFloodReleasesEveryEvent() {
    withWatchdog("throttleDisposeRacingTheFlood", seconds: 300) {
      let queue = DispatchQueue(label: "stress.throttle.release", attributes: .concurrent)
      let late = Counter()
      for iteration in 0..<(100 * stressScale) {
        let mode: ThrottleMode = iteration.isMultiple(of: 2) ? .latest : .leadingAndLatest
        let source = EventProducer<Tracked>()
        let deliveries = Counter()
        let observation = source.throttle(seconds: 0.00005, scheduler: queue, mode: mode).observe { _ in
          deliveries.increment()
        }
        let atDispose = Atomic<Int>(0)
        runTogether(threads: 3) { thread in
          if thread < 2 {
            for sequence in 0..<2_000 { source.next(Tracked(Stamp(thread: thread, sequence: sequence))) }
          } else {
            for _ in 0..<200 { sched_yield() }
            observation.dispose()
            atDispose.store(deliveries.count, ordering: .relaxed)
          }
        }
        settle(queue)
        if deliveries.count > atDispose.load(ordering: .relaxed) + 1 { late.increment() }
        #expect(waitUntil { Tracked.live.load(ordering: .relaxed) == 0 }, "iteration \(iteration): an event kept")
        #expect(source.observerCount == 0)
      }
      #expect(late.count == 0, "a delivery started after dispose() returned")
    }
  }
}

/// A producer that calls its one observer on the sender's thread, with no serialization (it breaks
/// guarantee 1 on purpose); `end()` is called once every sender has returned.
final class Unserialized<Event>: EventProducerType, @unchecked Sendable {
  // @unchecked: `observer` is written once, before any sender starts (runTogether's barrier).
  private var observer: EventObserver<Event>?
  var replayLength: Int { 0 }

  func observe(with observer: EventObserver<Event>) -> any DisposableType {
    self.observer = observer
    observer.registered?()
    return BlockDisposable {}
  }

  func send(_ event: Event) { observer?.event(event) }
  func end() { observer?.finished?() }
}
