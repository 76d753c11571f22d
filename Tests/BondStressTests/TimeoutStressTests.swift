import Bond
import Foundation
import Synchronization
import Testing

/// `timeout` on a real queue racing a sender that pauses about as long as the timeout, and a
/// disposer. Run under `swift test --sanitize=thread --filter TimeoutStressTests`.
@Suite struct TimeoutStressTests {
  /// What one observer received; touched only by its deliveries, which never overlap and hand over
  /// through the delivery's lock.
  final class Log: @unchecked Sendable {
    var events: [Int] = []
    var ends = 0
    var afterEnd = 0
    let done = DispatchSemaphore(value: 0)
  }

  @Test func timeoutRacingASender() {
    withWatchdog("timeoutRacingASender", seconds: 300) { timeoutRacingASenderRounds() }
  }

  private func timeoutRacingASenderRounds() {
    let rounds = 50 * stressScale
    for round in 0..<rounds {
      let queue = DispatchQueue(
        label: "stress.timeout.\(round)",
        attributes: round.isMultiple(of: 2) ? [] : .concurrent
      )
      let source = EventProducer<Int>()
      let log = Log()
      let observation = source.timeout(seconds: 0.0005, scheduler: queue, sending: -1).observe { value in
        if log.ends > 0 { log.afterEnd += 1 }
        log.events.append(value)
      } finished: {
        log.ends += 1
        log.done.signal()
      }
      let disposes = round.isMultiple(of: 5)
      runTogether(threads: disposes ? 3 : 2) { thread in
        switch thread {
        case 0:
          // The sender: bursts, then pauses around the timeout, until the timeout wins.
          for value in 0..<2_000 {
            source.next(value)
            if value.isMultiple(of: 50) { usleep(UInt32.random(in: 0...800)) }
            if observation.isDisposed { return }
          }
        case 1:
          // A second sender of negative-free values in a narrower range, to race the first.
          for value in 10_000..<10_200 {
            source.next(value)
            if observation.isDisposed { return }
          }
        default:
          usleep(UInt32.random(in: 0...1_000))
          observation.dispose()
        }
      }
      if !disposes || log.done.wait(timeout: .now() + 0.05) == .success {
        if !disposes {
          #expect(log.done.wait(timeout: .now() + 30) == .success, "round \(round): no end")
        }
        queue.sync(flags: .barrier) {}
        #expect(log.ends == 1 && log.afterEnd == 0, "round \(round): exactly one end, nothing after it")
        #expect(log.events.last == -1, "round \(round): `last` right before the end")
        let first = log.events.filter { $0 >= 0 && $0 < 10_000 }
        let second = log.events.filter { $0 >= 10_000 }
        #expect(first == Array(0..<first.count), "round \(round): the first sender's prefix, in order")
        #expect(second == Array(10_000..<(10_000 + second.count)), "round \(round): the second's, in order")
        #expect(log.events.filter { $0 == -1 }.count == 1)
      } else {
        queue.sync(flags: .barrier) {}
        #expect(log.ends == 0 && log.afterEnd == 0, "round \(round): disposed: no end")
      }
      #expect(observation.isDisposed)
      #expect(source.observerCount == 0, "round \(round): the upstream is no longer observed")
    }
  }
}
