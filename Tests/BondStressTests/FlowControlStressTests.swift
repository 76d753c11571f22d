import Foundation
import Synchronization
import Testing

@testable import Bond

// Flow control under concurrency (CONTRACT.md, "Flow control: lossless and bounded"): async and
// sync senders at once, pressure through operators, across stages and through a partition,
// disposal racing waiting senders. Every scenario runs under a watchdog (a sender that waits
// forever fails the run). Run under
// `swift test --scratch-path .build-tsan --sanitize=thread --filter FlowControlStressTests`.

/// A consumer's ~2 µs of work per event, so that the senders outrun it and the stages fill.
private func work() {
  var x = 0
  for i in 0..<400 { x &+= i &* i }
  if x == 42 { print(x) }
}

/// Each sender's events, in the order the consumer received them, and the most events seen waiting.
private final class Tally: @unchecked Sendable {
  // @unchecked: touched only under `lock`.
  private let lock = NSLock()
  private var bySender: [Int: [Int]] = [:]
  private var total = 0
  private(set) var mostBuffered = 0

  func add(sender: Int, sequence: Int, buffered: Int) {
    lock.lock()
    bySender[sender, default: []].append(sequence)
    total += 1
    mostBuffered = Swift.max(mostBuffered, buffered)
    lock.unlock()
  }

  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return total
  }

  func sequences(of sender: Int) -> [Int] {
    lock.lock()
    defer { lock.unlock() }
    return bySender[sender] ?? []
  }
}

@Suite struct FlowControlStressTests {
  /// Async senders only: nothing lost, each sender's order kept, and the stage never holds more
  /// than `bufferLimit` plus the number of senders (rule 3).
  @Test func asyncSendersKeepTheStageBounded() async {
    await withWatchdog("asyncSendersKeepTheStageBounded", seconds: 120) {
      let source = EventProducer<Int>()
      let stats = DeliveryStatistics()
      let tally = Tally()
      let limit = 64
      let senders = 4
      let perSender = 3_000 * stressScale
      let observation = source.deliverOn(
        DispatchQueue(label: "flow.stress.bounded"),
        bufferLimit: limit,
        whenFull: .backpressure,
        statistics: stats
      ).observe { value in
        tally.add(sender: value % senders, sequence: value / senders, buffered: stats.bufferedCount + 1)
        work()
      }
      await withTaskGroup(of: Void.self) { group in
        for sender in 0..<senders {
          group.addTask {
            for sequence in 0..<perSender { try? await source.send(sequence * senders + sender) }
          }
        }
      }
      #expect(waitUntil { tally.count == senders * perSender }, "\(tally.count) of \(senders * perSender)")
      for sender in 0..<senders { #expect(tally.sequences(of: sender) == Array(0..<perSender)) }
      #expect(tally.mostBuffered <= limit + senders, "held \(tally.mostBuffered), limit \(limit) + \(senders) senders")
      #expect(stats.pressureCount > 0 && stats.droppedCount == 0)
      observation.dispose()
    }
  }

  /// Async senders and a synchronous thread at once: `next` never waits (the stage goes past its
  /// limit by what it sends under pressure) and nothing is lost.
  @Test func asyncAndSyncSendersAtOnceLoseNothing() async {
    await withWatchdog("asyncAndSyncSendersAtOnceLoseNothing", seconds: 120) {
      let source = EventProducer<Int>()
      let tally = Tally()
      let senders = 3
      let perSender = 2_000 * stressScale
      let observation = source.deliverOn(
        DispatchQueue(label: "flow.stress.mixed"),
        bufferLimit: 32,
        whenFull: .backpressure
      )
      .observe { value in
        tally.add(sender: value % (senders + 1), sequence: value / (senders + 1), buffered: 0)
        work()
      }
      let syncDone = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        for sequence in 0..<perSender { source.next(sequence * (senders + 1) + senders) }
        syncDone.signal()
      }
      await withTaskGroup(of: Void.self) { group in
        for sender in 0..<senders {
          group.addTask {
            for sequence in 0..<perSender { try? await source.send(sequence * (senders + 1) + sender) }
          }
        }
      }
      syncDone.wait()
      #expect(waitUntil { tally.count == (senders + 1) * perSender }, "\(tally.count) of \((senders + 1) * perSender)")
      for sender in 0...senders { #expect(tally.sequences(of: sender) == Array(0..<perSender)) }
      observation.dispose()
    }
  }

  /// Pressure through combineLatest and merge to every source, each with its own async sender,
  /// and across two stages in a row: every sender finishes, the last values arrive.
  @Test func pressureThroughOperatorsAndTwoStages() async {
    await withWatchdog("pressureThroughOperatorsAndTwoStages", seconds: 120) {
      let a = EventProducer<Int>()
      let b = EventProducer<Int>()
      let c = EventProducer<Int>()
      let perSender = 2_000 * stressScale
      let merged = Tally()
      let combined = Atomic<Int>(0)
      let mergeObservation = merge([a, b])
        .deliverOn(DispatchQueue(label: "flow.stress.stage1"), bufferLimit: 16, whenFull: .backpressure)
        .deliverOn(DispatchQueue(label: "flow.stress.stage2"), bufferLimit: 16, whenFull: .backpressure)
        .observe { value in
          // a sends 0, 1, 2, ...; b sends -1, -2, -3, ...
          merged.add(sender: value < 0 ? 1 : 0, sequence: value < 0 ? -value - 1 : value, buffered: 0)
          work()
        }
      let combineObservation = combineLatest(b, c)
        .deliverOn(DispatchQueue(label: "flow.stress.combine"), bufferLimit: 8, whenFull: .backpressure)
        .observe { x, y in
          // relaxed: read after waitUntil, which only needs it to be eventually seen.
          if x == -perSender && y == perSender - 1 { combined.store(1, ordering: .relaxed) }
          work()
        }
      await withTaskGroup(of: Void.self) { group in
        group.addTask { for value in 0..<perSender { try? await a.send(value) } }
        group.addTask { for value in 0..<perSender { try? await b.send(-value - 1) } }
        group.addTask { for value in 0..<perSender { try? await c.send(value) } }
      }
      #expect(waitUntil { merged.count == 2 * perSender })
      #expect(merged.sequences(of: 0) == Array(0..<perSender) && merged.sequences(of: 1) == Array(0..<perSender))
      #expect(waitUntil { combined.load(ordering: .relaxed) == 1 }, "the last tuple arrived")
      mergeObservation.dispose()
      combineObservation.dispose()
      #expect([a, b, c].allSatisfy { $0.isWritable })
    }
  }

  /// Pressure through each kind of operator, with async senders on every source at once: every
  /// sender finishes (no sender waits forever on a stage that drains), the stage's consumer gets
  /// the last event of each chain, and every source is writable once the stage has drained.
  @Test func pressureThroughEveryKindOfOperator() async {
    await withWatchdog("pressureThroughEveryKindOfOperator", seconds: 180) {
      let perSender = 1_000 * stressScale
      typealias Chain = (name: String, sources: [EventProducer<Int>], output: AnyEventProducer<Int>)
      func chain(_ name: String, _ count: Int, _ make: ([EventProducer<Int>]) -> AnyEventProducer<Int>) -> Chain {
        let sources = (0..<count).map { _ in EventProducer<Int>() }
        return (name, sources, make(sources))
      }
      let chains: [Chain] = [
        chain("map, filter, compactMap", 1) {
          $0[0].map { $0 }.filter { _ in true }.compactMap { $0 }.eraseToAnyEventProducer()
        },
        chain("take", 1) { $0[0].take(perSender).eraseToAnyEventProducer() },
        chain("zip", 2) { $0[0].zipWith($0[1]).map { $0.0 }.eraseToAnyEventProducer() },
        chain("combineLatest", 2) { combineLatest($0[0], $0[1]).map { Swift.max($0, $1) }.eraseToAnyEventProducer() },
        chain("withLatestFrom", 2) { $0[0].withLatestFrom($0[1].startWith(-1)).map { $0.0 }.eraseToAnyEventProducer() },
        chain("share", 1) { $0[0].map { $0 }.share().eraseToAnyEventProducer() },
        chain("flatMap(.latest)", 1) { sources in
          let inner = sources[0]
          return EventProducer<Int>(replayLength: 1).startWith(0).flatMap(.latest) { _ in inner }
            .eraseToAnyEventProducer()
        },
      ]
      for chain in chains {
        let last = Atomic<Int>(-1)
        let stage = DispatchQueue(label: "flow.stress.\(chain.name)")
        let observation = chain.output.deliverOn(stage, bufferLimit: 16, whenFull: .backpressure).observe { value in
          // relaxed: polled until it shows the last value.
          last.store(value, ordering: .relaxed)
          work()
        }
        await withTaskGroup(of: Void.self) { group in
          for source in chain.sources {
            group.addTask { for value in 0..<perSender { try? await source.send(value) } }
          }
        }
        #expect(waitUntil { last.load(ordering: .relaxed) == perSender - 1 }, "\(chain.name): the last event arrived")
        #expect(waitUntil { chain.sources.allSatisfy { $0.isWritable } }, "\(chain.name): released once drained")
        observation.dispose()
      }
    }
  }

  /// A partition with one slow lane: the upstream is held back while it is full, every event
  /// arrives in its lane, in order per key.
  @Test func aSlowLaneHoldsThePartitionsUpstreamBack() async {
    await withWatchdog("aSlowLaneHoldsThePartitionsUpstreamBack", seconds: 120) {
      let source = EventProducer<Int>()
      let stats = DeliveryStatistics()
      let partition = source.partition(lanes: 2, bufferLimit: 32, whenFull: .backpressure, statistics: stats) { $0 % 4 }
      let tally = Tally()
      for lane in partition.lanes {
        lane.observe { value in
          tally.add(sender: value % 4, sequence: value / 4, buffered: stats.bufferedCount + 1)
          if value % 4 == 0 { work() }
        }
      }
      let perKey = 1_500 * stressScale
      await withTaskGroup(of: Void.self) { group in
        group.addTask { for value in 0..<(4 * perKey) where value % 2 == 0 { try? await source.send(value) } }
        group.addTask { for value in 0..<(4 * perKey) where value % 2 == 1 { try? await source.send(value) } }
      }
      #expect(waitUntil { tally.count == 4 * perKey })
      for key in 0..<4 { #expect(tally.sequences(of: key) == Array(0..<perKey)) }
      #expect(tally.mostBuffered <= 2 * 32 + 2, "both lanes: at most their limits plus the senders")
      partition.dispose()
    }
  }

  /// Disposing a stage while senders wait on it releases them all (rule 5), whichever thread wins.
  @Test func disposingAStageReleasesItsWaitingSenders() async {
    await withWatchdog("disposingAStageReleasesItsWaitingSenders", seconds: 120) {
      for _ in 0..<(50 * stressScale) {
        let source = EventProducer<Int>()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "flow.stress.dispose")
        let observation = source.deliverOn(queue, bufferLimit: 2, whenFull: .backpressure).observe { value in
          if value == 0 {
            entered.signal()
            gate.wait()
          }
        }
        source.next(0)
        entered.wait()  // the consumer is stuck: the stage fills
        source.next(1)
        source.next(2)
        await withTaskGroup(of: Void.self) { group in
          for sender in 0..<3 { group.addTask { try? await source.send(10 + sender) } }
          group.addTask {
            try? await Task.sleep(for: .microseconds(Int.random(in: 0...500)))
            observation.dispose()
          }
        }
        gate.signal()
        #expect(source.isWritable)
      }
    }
  }

  /// Cancelling waiting senders from another thread while the stage drains: a send that returned
  /// was delivered, once; a cancelled one threw, and its event was either never sent (cancelled
  /// while it waited for writability) or delivered once in its place (cancelled after it was
  /// queued, as the guide says); nothing is delivered twice, and every send not cancelled returns.
  @Test func cancellationRacingTheRelease() async {
    await withWatchdog("cancellationRacingTheRelease", seconds: 120) {
      let source = EventProducer<Int>()
      let received = Tally()
      let observation = source.deliverOn(
        DispatchQueue(label: "flow.stress.cancel"),
        bufferLimit: 4,
        whenFull: .backpressure
      )
      .observe { value in
        received.add(sender: 0, sequence: value, buffered: 0)
        work()
      }
      let returned = Recorder<Int>()
      let rounds = 300 * stressScale
      await withTaskGroup(of: Void.self) { group in
        for round in 0..<rounds {
          let task = Task {
            do {
              try await source.send(round)
              returned.add(round)
            } catch {}
          }
          group.addTask {
            if round % 3 == 0 { task.cancel() }
            await task.value
          }
        }
      }
      let sent = Set(returned.items)
      #expect(waitUntil { sent.isSubset(of: Set(received.sequences(of: 0))) }, "every send that returned was delivered")
      let values = received.sequences(of: 0)
      #expect(Set(values).count == values.count, "nothing delivered twice")
      #expect(values.allSatisfy { (0..<rounds).contains($0) })
      #expect((0..<rounds).allSatisfy { $0 % 3 == 0 || sent.contains($0) }, "every send not cancelled returned")
      observation.dispose()
    }
  }
}
