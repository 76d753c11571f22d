import Bond
import Foundation
import Synchronization
import Testing

/// The end racing events through `deliverOn` on a real queue, and `values` loops ended by a
/// deallocation on another thread. Run under
/// `swift test --sanitize=thread --filter FiniteTimeStressTests`.
@Suite struct FiniteTimeStressTests {
  struct Stamp: Sendable, Equatable {
    let thread: Int
    let sequence: Int
  }

  /// What one observer received, in delivery order; touched only by its deliveries, which never
  /// overlap and hand over through the delivery's lock.
  final class Log: @unchecked Sendable {
    var events: [Stamp] = []
    var ends = 0
    var afterEnd = 0
    let done = DispatchSemaphore(value: 0)
  }

  @Test func finishRacingNextFromFourThreadsThroughDeliverOn() {
    withWatchdog("finishRacingNextFromFourThreadsThroughDeliverOn", seconds: 300) { finishRacingNext() }
  }

  private func finishRacingNext() {
    let threads = 4
    let perThread = 2_000 * stressScale
    let rounds = 20
    for round in 0..<rounds {
      let queue = DispatchQueue(label: "stress.finite.\(round)", attributes: round.isMultiple(of: 2) ? [] : .concurrent)
      let source = EventProducer<Stamp>()
      // How many events each sender's `next` has returned for; the finisher reads them just before
      // it calls finish(): those events come before the end in the delivery order.
      let sent = (0..<threads).map { _ in SentCount() }
      let logs = (0..<3).map { _ in Log() }
      let observations = logs.map { log in
        source.deliverOn(queue).observe { stamp in
          if log.ends > 0 { log.afterEnd += 1 }
          log.events.append(stamp)
        } finished: {
          log.ends += 1
          log.done.signal()
        }
      }
      let sentBeforeEnd = Mutex<[Int]>([])
      runTogether(threads: threads + 1) { thread in
        if thread == threads {
          // The finisher: ends the stream in the middle of the senders' bursts.
          usleep(UInt32.random(in: 0...200))
          let counts = sent.map(\.value)
          source.finish()
          sentBeforeEnd.withLock { $0 = counts }
          return
        }
        for sequence in 0..<perThread {
          source.next(Stamp(thread: thread, sequence: sequence))
          sent[thread].set(sequence + 1)
        }
      }
      let minimum = sentBeforeEnd.withLock { $0 }
      for (index, log) in logs.enumerated() {
        #expect(log.done.wait(timeout: .now() + 30) == .success, "round \(round), observer \(index): no end")
        // Let a (wrong) delivery after the end show up before checking.
        queue.sync(flags: .barrier) {}
        #expect(log.ends == 1 && log.afterEnd == 0, "round \(round): exactly one end, nothing after it")
        for thread in 0..<threads {
          let got = log.events.filter { $0.thread == thread }.map(\.sequence)
          #expect(got == Array(0..<got.count), "round \(round): a prefix of thread \(thread)'s events, in order")
          #expect(got.count >= minimum[thread], "round \(round): every event sent before the end")
        }
      }
      // Every observer saw the same delivery order.
      #expect(logs.allSatisfy { $0.events == logs[0].events }, "round \(round): one delivery order")
      #expect(observations.allSatisfy { $0.isDisposed } && source.observerCount == 0)
    }
  }

  @Test func valuesLoopsEndWhenTheProducerIsDeallocatedOnAnotherThread() async {
    let loops = 200 * stressScale
    for _ in 0..<loops {
      var producer: EventProducer<Int>? = EventProducer<Int>()
      let stream = producer!.values
      let box = UncheckedBox(producer)
      producer = nil
      let sent = Atomic<Int>(0)
      Thread.detachNewThread {
        for value in 0..<100 {
          box.value?.next(value)
          sent.add(1, ordering: .relaxed)
        }
        box.value = nil  // the last reference: deallocated here, on this thread
      }
      let consumer = Task.detached {
        var got: [Int] = []
        for await value in stream { got.append(value) }
        return got
      }
      let outcome = await withTaskGroup(of: [Int]?.self) { group in
        group.addTask { await consumer.value }
        group.addTask {
          try? await Task.sleep(for: .seconds(30))
          return nil
        }
        let first = await group.next()!
        group.cancelAll()
        return first
      }
      guard let got = outcome else {
        Issue.record("a values loop did not end within 30 s after the producer was deallocated")
        consumer.cancel()
        return
      }
      #expect(got == Array(0..<100), "every event, then the end")
    }
  }
}

/// A count one thread publishes and another reads (release/acquire).
final class SentCount: Sendable {
  private let count = Atomic<Int>(0)
  func set(_ value: Int) { count.store(value, ordering: .releasing) }
  var value: Int { count.load(ordering: .acquiring) }
}

/// A reference handed to another thread that releases it there.
final class UncheckedBox<T>: @unchecked Sendable {
  var value: T?
  init(_ value: T?) { self.value = value }
}
