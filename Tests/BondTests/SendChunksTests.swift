@testable import Bond
import BondTesting
import Dispatch
import Foundation
import Testing

/// `send(contentsOf:)` over an `AsyncSequence` of arrays: each array one burst, one await each.
@Suite struct SendChunksTests {
  /// Every array in order; the producer stays open (the end is the caller's `finish()`).
  @Test func sendsEveryArrayInOrderAndLeavesTheEndToTheCaller() async throws {
    let producer = EventProducer<Int>()
    let log = Recorder<String>()
    producer.observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
    let chunks = AsyncStream<[Int]> { continuation in
      continuation.yield([0, 1, 2])
      continuation.yield([])
      continuation.yield([3])
      continuation.finish()
    }
    try await producer.send(contentsOf: chunks)
    #expect(log.items == ["0", "1", "2", "3"])
    #expect(!producer.isFinished)
    producer.finish()
    #expect(log.items == ["0", "1", "2", "3", "end"])
  }

  /// A burst keeps its place: another sender's event never comes between two of its events.
  @Test func aBurstIsNotInterleavedWithAnotherSendersEvents() async throws {
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    producer.observe { log.add($0) }
    let otherDone = Recorder<Bool>()
    let other = Thread {
      for value in 0..<2_000 { producer.next(-1 - value) }
      otherDone.add(true)
    }
    // The sequence ends (and `send` finishes the producer) only after the other thread's events.
    let chunks = AsyncStream<[Int]> { continuation in
      Task {
        for start in stride(from: 0, to: 1_000, by: 100) {
          continuation.yield(Array(start..<start + 100))
          await Task.yield()
        }
        while otherDone.items.isEmpty { try? await Task.sleep(for: .milliseconds(1)) }
        continuation.finish()
      }
    }
    other.start()
    try await producer.send(contentsOf: chunks)
    #expect(log.items.count == 3_000)
    let ours = log.items.enumerated().filter { $0.element >= 0 }
    #expect(ours.map(\.element) == Array(0..<1_000))
    #expect(log.items.filter { $0 < 0 } == (0..<2_000).map { -1 - $0 })
    for start in stride(from: 0, to: 1_000, by: 100) {
      let positions = ours[start..<start + 100].map(\.offset)
      #expect(positions.last! - positions.first! == 99, "the burst from \(start) is contiguous")
    }
  }

  @Test func anErrorIsThrownWithoutFinishing() async {
    struct Failure: Error {}
    let producer = EventProducer<Int>()
    let log = Recorder<Int>()
    producer.observe { log.add($0) }
    let chunks = AsyncThrowingStream<[Int], Error> { continuation in
      continuation.yield([1, 2])
      continuation.finish(throwing: Failure())
    }
    await #expect(throws: Failure.self) { try await producer.send(contentsOf: chunks) }
    #expect(log.items == [1, 2])
    #expect(!producer.isFinished)
  }

  /// Flow control per array: it waits while the producer is not writable before it pulls the next.
  @Test func itWaitsWhileTheProducerIsNotWritable() async throws {
    let clock = TestScheduler()
    let producer = EventProducer<Int>()
    let received = Recorder<Int>()
    producer.deliverOn(clock, bufferLimit: 4, whenFull: .backpressure).observe { received.add($0) }
    let chunks = AsyncStream<[Int]> { continuation in
      for start in stride(from: 0, to: 12, by: 4) { continuation.yield(Array(start..<start + 4)) }
      continuation.finish()
    }
    let sender = Task { try await producer.send(contentsOf: chunks) }
    #expect(await waitUntilAsync { !producer.isWritable })
    #expect(await waitUntilAsync { producer.waitingSenders == 1 }, "the sender waits before its next array")
    #expect(received.items.isEmpty)
    #expect(
      await waitUntilAsync {
        clock.run()
        return received.items.count == 12
      }
    )
    try await sender.value
    #expect(received.items == Array(0..<12))
  }

  @Test func cancellationStopsWithoutFinishing() async {
    let producer = EventProducer<Int>()
    let task = Task {
      try await producer.send(contentsOf: AsyncStream<[Int]> { _ in })
    }
    task.cancel()
    _ = await task.result
    #expect(!producer.isFinished)
  }
}
