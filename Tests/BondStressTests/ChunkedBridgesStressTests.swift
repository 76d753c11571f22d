import Foundation
import Synchronization
import Testing
@testable import Bond

// The chunked bridges under threads: `send(contentsOf:)` over arrays from four tasks, a thread
// calling `next` at once, and `batchedValues` taking the arrays out under backpressure, with
// cancellation racing both directions.
// Run under `swift test --scratch-path .build-tsan --sanitize=thread --filter ChunkedBridgesStressTests`.

/// The arrays `start..<start + count` of one sender, `size` events each.
private func chunks(sender: Int, count: Int, size: Int) -> AsyncStream<[Int]> {
  AsyncStream { continuation in
    for start in stride(from: 0, to: count, by: size) {
      continuation.yield((start..<Swift.min(start + size, count)).map { sender * 1_000_000 + $0 })
    }
    continuation.finish()
  }
}

@Suite struct ChunkedBridgesStressTests {
  /// Four tasks send arrays and a thread sends single events into one producer; a consumer takes
  /// the arrays out through `batchedValues` with a small buffer under backpressure. Every event
  /// arrives once, each sender's in order, each burst whole.
  @Test func fourChunkSendersAndASyncSenderIntoABackpressuredConsumer() async throws {
    await withWatchdog("chunkedBridges", seconds: 120) {
      let perSender = 2_000 * stressScale
      let size = 64
      let producer = EventProducer<Int>()
      let bufferLimit = 256
      let batches = producer.batchedValues(maxCount: 100, bufferLimit: bufferLimit)
      let consumer = Task {
        var all: [Int] = []
        for await batch in batches {
          all += batch
          if all.count >= 5 * perSender { break }
        }
        return all
      }
      let syncSender = Thread {
        for value in 0..<perSender { producer.next(4 * 1_000_000 + value) }
      }
      syncSender.start()
      await withTaskGroup(of: Void.self) { group in
        for sender in 0..<4 {
          group.addTask {
            do {
              try await producer.sendWithoutFinishing(chunks(sender: sender, count: perSender, size: size))
            } catch {
              Issue.record("sender \(sender) threw \(error)")
            }
          }
        }
      }
      let all = await consumer.value
      #expect(all.count == 5 * perSender)
      for sender in 0..<5 {
        let ours = all.filter { $0 / 1_000_000 == sender }.map { $0 % 1_000_000 }
        #expect(ours == Array(0..<perSender), "sender \(sender): every event once, in order")
      }
      // Each burst is whole: the positions of a chunk sender's burst are contiguous.
      let position = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($0.element, $0.offset) })
      for sender in 0..<4 {
        for start in stride(from: 0, to: perSender, by: size) {
          let first = position[sender * 1_000_000 + start]!
          let last = position[sender * 1_000_000 + Swift.min(start + size, perSender) - 1]!
          #expect(last - first == Swift.min(size, perSender - start) - 1)
        }
      }
    }
  }

  /// Cancellation racing the flood: consumers cancelled while senders send (sync and async), and
  /// async senders cancelled while they wait under pressure. Nothing hangs, nothing is delivered
  /// twice, and every observation is gone at the end.
  @Test func cancellationRacingBothDirections() async throws {
    await withWatchdog("chunkedBridgesCancellation", seconds: 120) {
      for round in 0..<(20 * stressScale) {
        let producer = EventProducer<Int>()
        let batches = producer.batchedValues(maxCount: 16, bufferLimit: 32)
        let consumer = Task {
          var seen = Set<Int>()
          var duplicates = 0
          for await batch in batches {
            for value in batch where !seen.insert(value).inserted { duplicates += 1 }
          }
          return duplicates
        }
        let senders = (0..<2).map { sender in
          Task { try await producer.sendWithoutFinishing(chunks(sender: sender, count: 5_000, size: 32)) }
        }
        let syncSender = Thread {
          for value in 0..<1_000 { producer.next(3 * 1_000_000 + value) }
        }
        syncSender.start()
        try? await Task.sleep(for: .microseconds(200 * (round % 5)))
        consumer.cancel()
        for sender in senders { sender.cancel() }
        #expect(await consumer.value == 0)
        for sender in senders { _ = await sender.result }
        #expect(waitUntil { producer.observerCount == 0 }, "round \(round)")
      }
    }
  }
}

extension EventProducer where Event: Sendable {
  /// `send(contentsOf:)` over arrays without the finish at the end (several senders share the
  /// producer): the same bursts, the same flow control.
  fileprivate func sendWithoutFinishing(_ chunks: AsyncStream<[Event]>) async throws {
    for await chunk in chunks {
      try await waitUntilWritable()
      try Task.checkCancellation()
      try await sendAwaitingDelivery(burst: chunk)
    }
  }
}
