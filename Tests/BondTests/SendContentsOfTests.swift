@testable import Bond
import BondTesting
import Dispatch
import Foundation
import Testing

@Suite struct SendContentsOfTests {
  /// It sends every element and leaves the producer open: the end is the caller's `finish()`.
  @Test func sendsEveryElementAndLeavesTheEndToTheCaller() async throws {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.observe {
      log.add("got \($0)")
    } finished: {
      log.add("end")
    }
    let stream = AsyncStream<Int> { continuation in
      for value in 0..<3 { continuation.yield(value) }
      continuation.finish()
    }
    try await producer.send(contentsOf: stream)
    #expect(log.items == ["got 0", "got 1", "got 2"])
    #expect(!producer.isFinished)
    producer.finish()
    #expect(log.items == ["got 0", "got 1", "got 2", "end"])
  }

  /// Four tasks send into one producer: the first to reach its sequence's end does not end the
  /// stream for the others; every element arrives, then the caller's end.
  @Test func severalTasksSendIntoOneProducer() async throws {
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    let ends = Recorder<Int>()
    producer.observe {
      log.add($0)
    } finished: {
      ends.add(log.count)
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for sender in 0..<4 {
        group.addTask {
          let stream = AsyncStream<Int> { continuation in
            for value in 0..<500 { continuation.yield(sender * 1_000 + value) }
            continuation.finish()
          }
          try await producer.send(contentsOf: stream)
        }
      }
      try await group.waitForAll()
    }
    #expect(!producer.isFinished)
    producer.finish()
    await producer.flush()
    #expect(log.count == 2_000)
    #expect(ends.items == [2_000], "the end once, after every element")
    for sender in 0..<4 {
      let own = log.items.filter { $0 / 1_000 == sender }
      #expect(own == (0..<500).map { sender * 1_000 + $0 }, "sender \(sender)'s order")
    }
  }

  @Test func anErrorIsThrownWithoutFinishing() async {
    struct Failure: Error {}
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    let stream = AsyncThrowingStream<Int, Error> { continuation in
      continuation.yield(1)
      continuation.finish(throwing: Failure())
    }
    await #expect(throws: Failure.self) { try await producer.send(contentsOf: stream) }
    #expect(log.items == ["1"])
    #expect(!producer.isFinished)
  }

  @Test func cancellationStopsWithoutFinishing() async {
    let producer = EventProducer<Int>()
    let task = Task {
      try await producer.send(contentsOf: AsyncStream<Int> { _ in })
    }
    task.cancel()
    _ = await task.result
    #expect(!producer.isFinished)
  }

  /// Issue 17: a task waiting for another thread's delivery resumes at once when cancelled, with
  /// `CancellationError`, while that thread is still blocked (it is released only afterwards).
  /// The element it had queued is delivered later, in its place; the producer is not finished.
  @Test func cancellingASendThatWaitsBehindABlockedDeliveryResumesAtOnce() async {
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
    let holderDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      producer.next(0)  // this thread holds the delivery rights, blocked in the observer
      holderDone.signal()
    }
    entered.wait()
    let task = Task {
      try await producer.send(
        contentsOf: AsyncStream<Int> { continuation in
          for value in 1...3 { continuation.yield(value) }
          continuation.finish()
        }
      )
    }
    // The task has queued element 1 and its resume behind the blocked holder: the count = 1 + 2.
    while producer.rights.queuedCount < 3 { try? await Task.sleep(for: .milliseconds(1)) }
    task.cancel()
    let returnedWhileBlocked = await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        _ = await task.result
        return true
      }
      group.addTask {
        // A watchdog, not a measure: a send that never returns while the holder blocks would hang
        // the test. Generous, because the parallel suite can keep this task off the pool a while.
        try? await Task.sleep(for: .seconds(60))
        return false
      }
      let first = await group.next() ?? false
      release.signal()  // whichever came first, let the holder go
      group.cancelAll()
      return first
    }
    #expect(returnedWhileBlocked, "the cancelled send returned while the holder was still blocked")
    let result = await task.result
    #expect(throws: CancellationError.self) { try result.get() }
    holderDone.wait()
    #expect(log.items == [0, 1], "the element queued before the cancellation, in its place; nothing after")
    #expect(!producer.isFinished)
    // The queued resume found the task gone and did nothing; the producer works on.
    producer.next(4)
    #expect(log.items == [0, 1, 4])
  }

  /// A task cancelled before it sends anything sends nothing.
  @Test func aTaskCancelledBeforeItsFirstElementSendsNothing() async {
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    producer.observe { log.add($0) }
    let started = DispatchSemaphore(value: 0)
    let task = Task {
      started.wait()
      try await producer.send(
        contentsOf: AsyncStream<Int> { continuation in
          continuation.yield(1)
          continuation.finish()
        }
      )
    }
    task.cancel()
    started.signal()
    let result = await task.result
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(log.items.isEmpty && !producer.isFinished)
  }
}
