import Foundation
import Synchronization
import Testing
@testable import Bond

/// The upstreams of `merge`, `combineLatest` and `zip` changing state under a flood of `next` from
/// several threads. Black-box (the public API, CONTRACT.md's guarantees 1-3 and 6, the finite
/// streams rules): whatever shortcut an upstream takes while the operator's inbox is its only
/// observer, these outcomes must hold. Run under ThreadSanitizer too.
@Suite(.serialized) struct UpstreamTransitionStressTests {
  typealias Stamp = TransitionStamp
  static let other = TransitionStamp.otherSource

  /// A second observer (on the upstream itself, or a second `merge` over it) registers and disposes
  /// again and again while two threads flood the upstream, another floods the operator's other
  /// source, and the operator observes throughout. The operator's observer gets every event of the
  /// upstream once, each thread's in order; each second observer gets a contiguous run of the
  /// operator's order (one order, no gap, no duplicate; a replay is the run's head), which holds
  /// every event sent after its `observe` returned up to where it was disposed, and no delivery to
  /// it starts after its `dispose()` returned (one in flight may end).
  @Test func secondObserverComingAndGoingOnAFloodedUpstream() {
    withWatchdog("secondObserverComingAndGoingOnAFloodedUpstream", seconds: 120) {
      let perThread = 3_000
      for round in 0..<(12 * stressScale) {  // each of the 12 variants once
        let combiner = TransitionCombiner.allCases[round % 3]
        let a = EventProducer<Stamp>(replayLength: (round / 3).isMultiple(of: 2) ? 0 : 2)
        let b = EventProducer<Stamp>()
        let throughMerge = (round / 6) % 2 == 1
        let order = StampLog()  // a's events, as the operator delivered them
        let operatorObservation = combiner.observe(a, b) { order.add($0) }
        b.next(Stamp(thread: Self.other, sequence: -1, epoch: 0))  // from now on each event of a makes a tuple
        let epoch = Atomic<Int>(0)
        let progress = Atomic<Int>(0)  // events sent by thread 0
        let floodsDone = Atomic<Int>(0)
        let unpaced = Atomic<Bool>(false)
        let churned = Locked<[ChurnedObservation]>([])
        runTogether(threads: 4) { thread in
          switch thread {
          case 0, 1, 2:
            // 150 events of a per cycle and thread (300 of b), so that the cycles spread over the flood.
            sendPaced(
              count: thread == 2 ? 2 * perThread : perThread,
              limit: thread == 2 ? 300 : 150,
              epoch: epoch,
              unpaced: { unpaced.load(ordering: .acquiring) }
            ) { sequence, current in
              guard thread < 2 else { return b.next(Stamp(thread: Self.other, sequence: sequence, epoch: 0)) }
              a.next(Stamp(thread: thread, sequence: sequence, epoch: current))
              if thread == 0 { progress.store(sequence, ordering: .relaxed) }
            }
            if thread < 2 { floodsDone.add(1, ordering: .releasing) }
          default:
            // Cycles while three quarters of the flood is sent; the last observer stays to the end.
            var cycle = 0
            while true {
              cycle += 1
              let last = progress.load(ordering: .relaxed) >= perThread * 3 / 4
              let observer = ChurnedObservation(cycle: cycle, stalls: true)
              churned.withLock { $0.append(observer) }
              observer.started(throughMerge ? merge([a]).observe(observer.receive) : a.observe(observer.receive))
              // releasing: a sender that reads it sends after `observe` returned.
              epoch.store(cycle, ordering: .releasing)
              if last { unpaced.store(true, ordering: .releasing) }
              while !observer.sawLive && floodsDone.load(ordering: .acquiring) < 2 { usleep(20) }
              if last || floodsDone.load(ordering: .acquiring) == 2 { break }
              observer.dispose()
            }
          }
        }
        guard let delivered = checkOperatorOrder(order, perThread: perThread, round: round) else { break }
        checkRuns(churned.value, of: delivered, round: round)
        churned.value.last?.dispose()
        operatorObservation.dispose()
        #expect(a.observerCount == 0 && b.observerCount == 0)
      }
    }
  }

  /// The upstream finishes on one thread while two others flood it (the operator's other source has
  /// ended before, so the upstream's end ends the operator: merge once both have ended,
  /// combineLatest once both have ended, zip once a source has ended with nothing unmatched). The
  /// operator delivers one end, nothing after it (checked once every round has run), and before it
  /// every event whose `next` returned before `finish()` was called; each thread's events in order.
  @Test func upstreamFinishingUnderAFloodEndsTheOperatorOnceAfterItsEvents() {
    withWatchdog("upstreamFinishingUnderAFloodEndsTheOperatorOnceAfterItsEvents", seconds: 120) {
      let before = 200  // thread 0's events, all sent before it calls finish()
      let cap = 2_000  // the most that threads 1 and 2 send each
      var rounds: [(log: Recorder<TransitionEntry>, returned: [Int], observation: any DisposableType)] = []
      for round in 0..<(90 * stressScale) {
        let combiner = TransitionCombiner.allCases[round % 3]
        let a = EventProducer<Stamp>()
        let b = EventProducer<Stamp>()
        let log = Recorder<TransitionEntry>()
        let observation = combiner.observe(a, b, onA: { log.add(.event($0)) }, finished: { log.add(.end) })
        // zip: b's events outnumber a's, so a's end leaves nothing of a unmatched and ends it.
        for sequence in 0..<[TransitionCombiner.merge: 0, .combineLatest: 1, .zip: before + 2 * cap][combiner]! {
          b.next(Stamp(thread: Self.other, sequence: sequence, epoch: 0))
        }
        b.finish()
        let returned = SendProgress()
        let finishCalled = Atomic<Bool>(false)
        let returnedAtFinish = Locked<[Int]>([])
        runTogether(threads: 3) { thread in
          if thread == 0 {
            for sequence in 0..<before { a.next(Stamp(thread: 0, sequence: sequence, epoch: 0)) }
            // What threads 1 and 2 had sent (their `next` returned) before finish() is called.
            returnedAtFinish.withLock { $0 = [before - 1, returned.last(1), returned.last(2)] }
            a.finish()
            finishCalled.store(true, ordering: .releasing)
            return
          }
          // Sends until 50 events after finish() returned (they reach nobody), at most `cap`.
          var extra = 50
          for sequence in 0..<cap where extra > 0 {
            a.next(Stamp(thread: thread, sequence: sequence, epoch: 0))
            returned.sent(sequence, by: thread)
            if finishCalled.load(ordering: .acquiring) { extra -= 1 }
          }
        }
        #expect(waitUntil(seconds: 10) { log.items.contains(.end) }, "round \(round), \(combiner): the end arrives")
        #expect(a.observerCount == 0 && b.observerCount == 0)
        rounds.append((log, returnedAtFinish.value, observation))
      }
      // Anything delivered after an end has had every other round's time to show up.
      for (round, (log, returned, observation)) in rounds.enumerated() {
        checkEnd(log.items, returnedAtFinish: returned, round: round)
        #expect(observation.isDisposed, "round \(round): the end disposes the observation")
      }
    }
  }

  /// The operator's observation is replaced again and again (through merge, combineLatest and zip in
  /// turn; the new one observed before the old is disposed, or after) while two threads flood the
  /// upstream and a third its other source, so the upstream goes 1 -> 2 -> 1 and 1 -> 0 -> 1 observers
  /// under the flood. Each observation gets, of each thread, a contiguous run of its events in order,
  /// from no later than the first one sent after its `observe` returned; no delivery starts after
  /// its `dispose()` returned (one in flight may end); its closure is released.
  @Test func operatorObservationsReplacedWhileFloodsRun() {
    withWatchdog("operatorObservationsReplacedWhileFloodsRun", seconds: 120) {
      let cycles = 300 * stressScale
      let burst = 400
      let a = EventProducer<Stamp>()
      let b = EventProducer<Stamp>(replayLength: 1)  // each new combineLatest starts with b's latest
      b.next(Stamp(thread: Self.other, sequence: -1, epoch: 0))
      let epoch = Atomic<Int>(0)
      let stop = Atomic<Bool>(false)
      let tokens = WeakTokens()
      let observers = Locked<[ChurnedObservation]>([])
      // Per flooding thread: at index e, the sequence of its first event sent with an epoch >= e.
      let firstOfEpoch = Locked<[[Int]]>([[], []])
      runTogether(threads: 4) { thread in
        switch thread {
        case 0, 1, 2:
          // At most `burst` events per epoch and thread of a, three times as many of b (so that zip
          // always has a partner for the first event of a's new epoch): the backlog stays bounded.
          let firsts = sendPaced(
            limit: thread == 2 ? 3 * burst : burst,
            epoch: epoch,
            stop: { stop.load(ordering: .acquiring) }
          ) { sequence, current in
            guard thread < 2 else { return b.next(Stamp(thread: Self.other, sequence: sequence, epoch: 0)) }
            a.next(Stamp(thread: thread, sequence: sequence, epoch: current))
          }
          if thread < 2 { firstOfEpoch.withLock { $0[thread] = firsts } }
        default:
          var previous: ChurnedObservation?
          for cycle in 1...cycles {
            let overlapping = cycle.isMultiple(of: 2)
            if !overlapping { previous?.dispose() }
            let observer = ChurnedObservation(cycle: cycle)
            observers.withLock { $0.append(observer) }
            let token = tokens.make()
            let combiner = TransitionCombiner.allCases[cycle % 3]
            let registered = Atomic<Bool>(false)
            observer.started(
              combiner.observe(a, b) { stamp in
                withExtendedLifetime(token) {}
                observer.receive(stamp)
              } registered: {
                registered.store(true, ordering: .releasing)
              }
            )
            // combineLatest drops a's events until b's latest has reached it, which the flood of b may
            // delay past `observe` (its replay is queued): its epoch starts once `registered` is called.
            if combiner == .combineLatest { waitUntil(seconds: 10) { registered.load(ordering: .acquiring) } }
            epoch.store(cycle, ordering: .releasing)  // releasing: its readers send after `observe`
            // The floods go on: a live event comes, unless it is lost (checked below).
            let live = waitUntil(seconds: 10) { observer.sawLive }
            if overlapping { previous?.dispose() }
            previous = observer
            if !live { break }
          }
          previous?.dispose()
          stop.store(true, ordering: .releasing)
        }
      }
      #expect(waitUntil(seconds: 10) { tokens.alive == 0 }, "every disposed observation's closure is released")
      #expect(tokens.count == cycles)
      checkReplacedObservations(observers.value, firstOfEpoch: firstOfEpoch.value)
      #expect(a.observerCount == 0 && b.observerCount == 0)
    }
  }

  /// The operator's observer sends back into the upstream from inside its deliveries (every 8th event
  /// of the floods starts a chain of 4 such sends, each sent from the delivery of the one before)
  /// while two threads flood that upstream and a third the other source. Every event arrives once,
  /// each thread's in order, the chained sends in the order they were sent; no two deliveries
  /// overlap (a send that recursed into the delivery would: the stack stays flat); no deadlock.
  @Test func reentrantSendsIntoAFloodedUpstream() {
    withWatchdog("reentrantSendsIntoAFloodedUpstream", seconds: 120) {
      let (perThread, every, chain, echoThread) = (4_000, 8, 4, 2)
      let echoes = 2 * ((perThread + every - 1) / every) * chain
      let total = 2 * perThread + echoes
      for round in 0..<(6 * stressScale) {
        let combiner = TransitionCombiner.allCases[round % 3]
        let a = EventProducer<Stamp>()
        let b = EventProducer<Stamp>()
        let overlaps = OverlapDetector()
        let order = StampLog()
        var echoSequence = 0  // touched only by deliveries, which never overlap
        let observation = combiner.observe(a, b) { stamp in
          overlaps.enter()
          order.add(stamp)
          // An echo carries in `epoch` how many more sends its chain makes.
          let remaining = stamp.thread == echoThread ? stamp.epoch : stamp.sequence % every == 0 ? chain : 0
          if remaining > 0 {
            a.next(Stamp(thread: echoThread, sequence: echoSequence, epoch: remaining - 1))
            echoSequence += 1
          }
          overlaps.leave()
        }
        b.next(Stamp(thread: Self.other, sequence: -1, epoch: 0))  // from now on each event of a makes a tuple
        runTogether(threads: 3) { thread in
          if thread < 2 {
            for sequence in 0..<perThread { a.next(Stamp(thread: thread, sequence: sequence, epoch: 0)) }
          } else {
            // zip: one event of b for each of a's, the echoes included.
            for sequence in 0..<total { b.next(Stamp(thread: Self.other, sequence: sequence, epoch: 0)) }
          }
        }
        let arrived = waitUntil(seconds: 30) { order.count >= total }
        observation.dispose()
        let delivered = order.items
        #expect(overlaps.count == 0, "round \(round), \(combiner): no overlapping or nested delivery")
        let inOrder = [(0, perThread), (1, perThread), (echoThread, echoes)].map { thread, count in
          expectSequence(sequences(of: thread, in: delivered), 0..<count, "round \(round), thread \(thread)")
        }
        #expect(a.observerCount == 0 && b.observerCount == 0)
        guard arrived, delivered.count == total, inOrder.allSatisfy({ $0 }), overlaps.count == 0 else { break }
      }
    }
  }

  /// merge, combineLatest and zip observe the upstream and are disposed 10,000 times in a loop while
  /// two threads flood it and the other source (so every observation sees events, and the upstream
  /// goes 0 -> 1 -> 0 observers under the flood). Nothing stays behind: every observer's closure is
  /// released, and the upstreams have no observer left.
  @Test func observingAndDisposingTenThousandTimesLeavesNothingBehind() async {
    await withWatchdog("observingAndDisposingTenThousandTimesLeavesNothingBehind", seconds: 120) {
      let iterations = 10_000 * stressScale
      let a = EventProducer<Stamp>()
      let b = EventProducer<Stamp>(replayLength: 1)
      let stop = Atomic<Bool>(false)
      let tokens = WeakTokens()
      let deliveries = Counter()
      let done = Atomic<Int>(0)  // iterations done
      runTogether(threads: 3) { thread in
        if thread < 2 {
          // At most 20 events per iteration: the backlog stays bounded.
          sendPaced(limit: 20, epoch: done, stop: { stop.load(ordering: .acquiring) }) { sequence, _ in
            (thread == 0 ? a : b).next(Stamp(thread: thread == 0 ? 0 : Self.other, sequence: sequence, epoch: 0))
          }
          return
        }
        for iteration in 0..<iterations {
          let token = tokens.make()
          let observation = TransitionCombiner.allCases[iteration % 3].observe(a, b) { _ in
            withExtendedLifetime(token) {}
            deliveries.increment()
          }
          // One event of a's from this thread too, every 4th time, through the new observation.
          if iteration.isMultiple(of: 4) { a.next(Stamp(thread: 2, sequence: iteration, epoch: 0)) }
          observation.dispose()
          done.store(iteration + 1, ordering: .releasing)
        }
        stop.store(true, ordering: .releasing)
      }
      // Then, the upstreams idle, one of each at once, disposed in turn: 3 -> 2 -> 1 -> 0 observers.
      await a.flush()
      await b.flush()
      let last = TransitionCombiner.allCases.map { combiner in
        let token = tokens.make()
        return combiner.observe(a, b) { _ in withExtendedLifetime(token) {} }
      }
      last.forEach { $0.dispose() }
      #expect(waitUntil(seconds: 10) { tokens.alive == 0 }, "every observer's closure is released")
      #expect(a.observerCount == 0 && b.observerCount == 0)
      #expect(deliveries.count > 0, "the observations saw the flood")
    }
  }
}
