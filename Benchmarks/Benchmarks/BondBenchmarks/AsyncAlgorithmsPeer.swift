// Peer: swift-async-algorithms 1.1.4. It is PULL-based: a consumer task iterates an
// `AsyncSequence` and a sender suspends (`await channel.send`) until its element is taken
// (`AsyncChannel` is a rendezvous). Every event therefore crosses tasks; the figures are the
// cost of that model on the same work, not of a synchronous observer call.
//
// Cells: S1, S2 (`AsyncChannel` + map/filter/map), S3 (`share()` with 10 consumers),
// S4 (`combineLatest`), S5 (nested `merge`: the library merges at most 3 sequences at a time),
// S7 (`AsyncStream` with an unbounded buffer drained by a consumer task: the Swift-concurrency
// way to deliver on another executor), S10 (two sending tasks into one `AsyncChannel`).
// No natural equivalent: S6 (no switch/flatMapLatest in 1.1.4's public API), S8 (no replay),
// S9 and S9b (single-consumer channels), S11 (`_throttle` sleeps out the window when its base ends),
// S12 (no observable array).
//
// Each iteration sends 100,000 events (`peerEventsPerIteration`, not 1M as the push engines): a
// rendezvous per event costs microseconds. S3 sends 10,000: `share()` to 10 consumers costs
// ~60 µs per event here, and an iteration must stay under 2 s (see `peerEventsPerIteration`).

import AsyncAlgorithms
import Benchmark

func registerAsyncAlgorithms() {
  let events = peerEventsPerIteration

  // S1 send-1
  registerAsync(.s1, .asyncAlgorithms, events: events) { benchmark in
    let channel = AsyncChannel<Int>()
    let consumer = Task {
      var sum = 0
      for await value in channel { sum &+= value }
      return sum
    }
    benchmark.startMeasurement()
    for i in 0..<events { await channel.send(i) }
    channel.finish()
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  // S2 chain
  registerAsync(.s2, .asyncAlgorithms, events: events) { benchmark in
    let channel = AsyncChannel<Int>()
    let consumer = Task {
      var sum = 0
      for await value in channel.map({ $0 + 1 }).filter({ $0 % 2 == 0 }).map({ $0 * 2 }) {
        sum &+= value
      }
      return sum
    }
    benchmark.startMeasurement()
    for i in 0..<events { await channel.send(i) }
    channel.finish()
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  // S3 fanout-10: `share()`, 10 consumers. Each consumer makes its iterator, then reports in;
  // sending starts once all 10 are in.
  let fanoutEvents = 10_000
  registerAsync(.s3, .asyncAlgorithms, events: fanoutEvents) { benchmark in
    let events = fanoutEvents
    let channel = AsyncChannel<Int>()
    let shared = channel.share(bufferingPolicy: .bounded(1))
    let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
    let consumers = (0..<10).map { _ in
      Task {
        var iterator = shared.makeAsyncIterator()
        readyContinuation.yield()
        var sum = 0
        var count = 0
        while let value = await iterator.next(isolation: nil) {
          sum &+= value
          count += 1
        }
        return (sum, count)
      }
    }
    var readyCount = 0
    for await _ in ready {
      readyCount += 1
      if readyCount == 10 { break }
    }
    benchmark.startMeasurement()
    for i in 0..<events { await channel.send(i) }
    channel.finish()
    var total = 0
    var received = 0
    for consumer in consumers {
      let (sum, count) = await consumer.value
      total &+= sum
      received += count
    }
    benchmark.stopMeasurement()
    precondition(received == 10 * events, "S3 AsyncAlgorithms: \(received) of \(10 * events) delivered")
    blackHole(total)
  }

  // S4 combine-latest
  registerAsync(.s4, .asyncAlgorithms, events: events) { benchmark in
    let first = AsyncChannel<Int>()
    let second = AsyncChannel<Int>()
    let consumer = Task {
      var sum = 0
      for await (a, b) in combineLatest(first, second) { sum &+= a &+ b }
      return sum
    }
    benchmark.startMeasurement()
    for i in 0..<events {
      if i & 1 == 0 { await first.send(i) } else { await second.send(i) }
    }
    first.finish()
    second.finish()
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  // S5 merge-8: merge takes 2 or 3 sequences, so 8 are merged as 3 + 3 + 2.
  registerAsync(.s5, .asyncAlgorithms, events: events) { benchmark in
    let sources = (0..<8).map { _ in AsyncChannel<Int>() }
    let merged = merge(
      merge(sources[0], sources[1], sources[2]),
      merge(sources[3], sources[4], sources[5]),
      merge(sources[6], sources[7])
    )
    let consumer = Task {
      var sum = 0
      for await value in merged { sum &+= value }
      return sum
    }
    benchmark.startMeasurement()
    for i in 0..<events { await sources[i & 7].send(i) }
    for source in sources { source.finish() }
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  // S7 deliver-on: AsyncStream (unbounded) + a consumer task; yield never suspends.
  registerAsync(.s7, .asyncAlgorithms, events: events) { benchmark in
    let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
    let consumer = Task {
      var sum = 0
      for await value in stream { sum &+= value }
      return sum
    }
    benchmark.startMeasurement()
    for i in 0..<events { continuation.yield(i) }
    continuation.finish()
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }

  // S10 concurrent-send: two sending tasks into one AsyncChannel, one consumer.
  registerAsync(.s10, .asyncAlgorithms, events: events) { benchmark in
    let channel = AsyncChannel<Int>()
    let consumer = Task {
      var sum = 0
      for await value in channel { sum &+= value }
      return sum
    }
    let perTask = events / 2
    benchmark.startMeasurement()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<2 {
        group.addTask {
          for i in 0..<perTask { await channel.send(i) }
        }
      }
    }
    channel.finish()
    let sum = await consumer.value
    benchmark.stopMeasurement()
    blackHole(sum)
  }
}
