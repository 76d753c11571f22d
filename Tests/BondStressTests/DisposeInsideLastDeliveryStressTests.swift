import Bond
import BondTesting
import Foundation
import Testing

/// An observer that disposes its own observation inside the delivery that ends the stream (zip's
/// last tuple, collect's last array, delay's last event) while other threads keep sending: no
/// `finished` may follow the dispose (finite streams rule 4, guarantee 3), and delay leaves no timer
/// behind (guarantee 6). Issue 17, items 2, 3 and 5. Run under
/// `swift test --sanitize=thread --filter DisposeInsideLastDeliveryStressTests`.
@Suite struct DisposeInsideLastDeliveryStressTests {
  /// What one round observed: the observer's dispose, the ends, the ends after that dispose.
  final class Outcome: Sendable {
    let disposed = Counter()
    let ends = Counter()
    let endsAfterDispose = Counter()

    /// The observer's `finished`.
    func ended() {
      if disposed.count > 0 { endsAfterDispose.increment() }
      ends.increment()
    }
  }

  /// An object the observer captures, watched through a weak reference.
  final class Captured: Sendable {}

  @Test func zipDisposeInsideTheTupleThatEndsTheStream() {
    withWatchdog("zipDisposeInsideTheTupleThatEndsTheStream", seconds: 300) {
      let count = 500
      for round in 0..<(40 * stressScale) {
        let a = EventProducer<Int>()
        let b = EventProducer<Int>()
        let outcome = Outcome()
        let tuples = Recorder<Int>()
        let holder = SerialDisposable()
        holder.otherDisposable = zip(a, b).observe { pair in
          tuples.add(pair.0)
          // a's last event: this tuple ends the stream (or a's end, queued behind it, does).
          if pair.0 == count - 1 {
            outcome.disposed.increment()
            holder.dispose()
          }
        } finished: {
          outcome.ended()
        }
        runTogether(threads: 2) { thread in
          if thread == round % 2 {
            for value in 0..<count { a.next(value) }
            a.finish()
          } else {
            // Floods b past a's end: what comes after the dispose is dropped.
            for value in 0..<(2 * count) { b.next(value) }
          }
        }
        // A sender may return before another thread has delivered what it found queued: wait for
        // the outcome (the dispose, and both observations purged), then check it.
        waitUntil { outcome.disposed.count == 1 && a.observerCount == 0 && b.observerCount == 0 }
        #expect(outcome.disposed.count == 1)
        #expect(outcome.ends.count == 0 && outcome.endsAfterDispose.count == 0)
        #expect(tuples.items == Array(0..<count))
        #expect(a.observerCount == 0 && b.observerCount == 0)
      }
    }
  }

  @Test func collectDisposeInsideTheLastArray() {
    withWatchdog("collectDisposeInsideTheLastArray", seconds: 300) {
      let perThread = 1_000
      let count = 7
      for round in 0..<(100 * stressScale) {
        let source = EventProducer<Int>()
        let collectsAll = round.isMultiple(of: 2)
        let outcome = Outcome()
        let holder = SerialDisposable()
        let collected = collectsAll ? source.collect() : source.collect(count: count)
        holder.otherDisposable = collected.observe { array in
          // collect()'s one array, or a partial array: the last one, the end follows it.
          if collectsAll || array.count < count {
            outcome.disposed.increment()
            holder.dispose()
          }
        } finished: {
          outcome.ended()
        }
        runTogether(threads: 2) { thread in
          for value in 0..<perThread { source.next(value) }
          // Thread 0 ends the stream while thread 1 may still be sending.
          if thread == 0 { source.finish() }
        }
        // A sender may return before another thread has delivered what it found queued: wait for
        // the outcome (the last array or the end, and the observation purged), then check it.
        waitUntil { outcome.disposed.count + outcome.ends.count >= 1 && source.observerCount == 0 }
        #expect(outcome.endsAfterDispose.count == 0)
        // Either the observer disposed inside the last array, or there was no partial array and
        // the end came, once.
        #expect(outcome.disposed.count + outcome.ends.count == 1)
        if collectsAll { #expect(outcome.disposed.count == 1) }
        #expect(source.observerCount == 0)
      }
    }
  }

  @Test func delayDisposeInsideTheLastDeliveryLeavesNoTimer() {
    withWatchdog("delayDisposeInsideTheLastDeliveryLeavesNoTimer", seconds: 300) {
      let count = 200
      for round in 0..<(40 * stressScale) {
        let clock = TestScheduler()
        let source = EventProducer<Int>()
        let outcome = Outcome()
        let holder = SerialDisposable()
        // The last event (its end follows at once), or one in the middle of the flood (timers of
        // the later events are pending, and more are being scheduled by the sender).
        let disposeAt = round.isMultiple(of: 2) ? count - 1 : count / 2
        weak var weakCapture: Captured?
        do {
          let tracked = Captured()
          weakCapture = tracked
          holder.otherDisposable = source.delay(seconds: 0.001, scheduler: clock).observe { value in
            _ = tracked
            if value == disposeAt {
              outcome.disposed.increment()
              holder.dispose()
            }
          } finished: {
            outcome.ended()
          }
        }
        runTogether(threads: 2) { thread in
          if thread == 0 {
            for value in 0..<count { source.next(value) }
            source.finish()
          } else {
            // Moves virtual time on while the sender schedules timers, until the observer disposes.
            while outcome.disposed.count == 0 { clock.advance(by: 0.0005) }
          }
        }
        // Runs what is due now (a drain scheduled before the dispose), not the timers.
        clock.advance(by: 0)
        #expect(clock.pendingActionCount == 0)
        #expect(weakCapture == nil)
        #expect(outcome.ends.count == 0 && outcome.endsAfterDispose.count == 0)
        #expect(source.observerCount == 0)
      }
    }
  }
}
