import Bond
import Foundation
import Testing

/// `collect(count:orEvery:scheduler:)` on a real queue with senders on four threads. Run under
/// `swift test --sanitize=thread --filter CollectStressTests`.
@Suite struct CollectStressTests {
  struct Stamp: Sendable, Equatable {
    let thread: Int
    let sequence: Int
  }

  /// What the observer received, in delivery order; touched only by its deliveries, which never
  /// overlap and hand over through the delivery's lock.
  final class Log: @unchecked Sendable {
    var arrays: [[Stamp]] = []
    var ends = 0
    var afterEnd = 0
    let done = DispatchSemaphore(value: 0)
  }

  @Test func fourSendersNoEventLostOrDuplicated() {
    withWatchdog("fourSendersNoEventLostOrDuplicated", seconds: 300) { fourSenders() }
  }

  private func fourSenders() {
    let threads = 4
    let perThread = 2_000 * stressScale
    let count = 7
    for round in 0..<10 {
      let queue = DispatchQueue(label: "stress.collect.\(round)")
      let source = EventProducer<Stamp>()
      let log = Log()
      let observation = source.collect(count: count, orEvery: 0.0002, scheduler: queue).observe { array in
        if log.ends > 0 { log.afterEnd += 1 }
        log.arrays.append(array)
      } finished: {
        log.ends += 1
        log.done.signal()
      }
      runTogether(threads: threads) { thread in
        for sequence in 0..<perThread {
          source.next(Stamp(thread: thread, sequence: sequence))
          if sequence.isMultiple(of: 97) { usleep(50) }
        }
      }
      source.finish()
      #expect(log.done.wait(timeout: .now() + 60) == .success)
      queue.sync {
        #expect(log.ends == 1 && log.afterEnd == 0)
        #expect(!log.arrays.contains { $0.isEmpty || $0.count > count })
        var next = [Int](repeating: 0, count: threads)
        var inOrder = true
        for stamp in log.arrays.joined() {
          if stamp.sequence != next[stamp.thread] { inOrder = false }
          next[stamp.thread] = stamp.sequence + 1
        }
        #expect(inOrder && next == [Int](repeating: perThread, count: threads))
      }
      observation.dispose()
    }
  }
}
