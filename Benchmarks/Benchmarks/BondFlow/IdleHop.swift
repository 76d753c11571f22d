// S19c: the cost of one backpressured hop, in ns per event, with a consumer that does nothing
// (it counts, checks the order and samples how far behind the producer it is).
//
//   Bond            `send(contentsOf:)` of the async generator → `deliverOn(queue, bufferLimit: 10_000,
//                   whenFull: .backpressure)` → observer
//   MPSC channel    swift-async-algorithms `MultiProducerSingleConsumerAsyncChannel`,
//                   `.watermark(low: 5_000, high: 10_000)`: a loop of `try await source.send(i)` (the
//                   ASYNC overload, pinned by its `Void` result: the synchronous one, which a `var`
//                   source also offers, returns a `SendResult` nobody reads and never waits), and a
//                   consumer task `for await`
//   AsyncChannel    swift-async-algorithms `AsyncChannel` (a rendezvous): `await channel.send(i)`,
//                   a consumer task `for await`
//
// Bond's breakdown (where its time goes), the same idle consumer:
//   S19c-bond-next        a loop of `next` → the same stage (no async sender; `next` never waits)
//   S19c-bond-unbounded   `send(contentsOf:)` → `deliverOn(queue)` (unbounded: the drain takes bursts)
//   S19c-bond-direct      `send(contentsOf:)` → the observer, no hop (the async sender's own cost)
//
// Timed from the first send to the consumer's end. "max in flight" (elements sent and not yet
// consumed, sampled every 1,024) shows the memory is bounded in each.
import AsyncAlgorithms
import BenchWork
import Bond
import Dispatch

enum IdleHop: String {
  case bond = "S19c-bond"
  case mpsc = "S19c-mpsc"
  case asyncChannel = "S19c-asyncchannel"
  case bondNext = "S19c-bond-next"
  case bondUnbounded = "S19c-bond-unbounded"
  case bondDirect = "S19c-bond-direct"

  func run(events: Int) async -> [(String, Any)] {
    let startMiB = peakMiB()
    let progress = Progress()
    let consumer = InOrder(workNanoseconds: 0, progress: progress, statistics: nil)
    let start = now()
    switch self {
    case .bond, .bondNext, .bondUnbounded, .bondDirect:
      let producer = EventProducer<Int>()
      let completion = Completion(count: 1)
      let queue = DispatchQueue(label: "bench.\(rawValue)")
      let receive: (Int) -> Void = { consumer.receive($0) }
      let finished = { completion.finishOne() }
      let observation =
        switch self {
        case .bondUnbounded: producer.deliverOn(queue).observe(receive, finished: finished)
        case .bondDirect: producer.observe(receive, finished: finished)
        default:
          producer.deliverOn(queue, bufferLimit: flowBufferLimit, whenFull: .backpressure)
            .observe(receive, finished: finished)
        }
      if self == .bondNext {
        for i in 0..<events {
          if i & 255 == 0 { progress.generated.store(i, ordering: .relaxed) }
          producer.next(i)
        }
        producer.finish()
      } else {
        do {
          try await producer.send(contentsOf: Generator<Int>(count: events, progress: progress))
          producer.finish()  // send(contentsOf:) leaves the end to its caller
        } catch {
          fail("\(rawValue): send(contentsOf:) threw \(error)")
        }
      }
      await completion.wait()
      observation.dispose()
    case .mpsc:
      var channelAndSource = MultiProducerSingleConsumerAsyncChannel.makeChannel(
        of: Int.self,
        backpressureStrategy: .watermark(low: flowBufferLimit / 2, high: flowBufferLimit)
      )
      let elements = channelAndSource.takeChannel().elements()
      var source = consume channelAndSource.source
      let task = Task {
        for await element in elements { consumer.receive(element) }
      }
      do {
        for i in 0..<events {
          if i & 255 == 0 { progress.generated.store(i, ordering: .relaxed) }
          // `Void`: the async overload, the one that waits (see the top of the file).
          let waited: Void = try await source.send(i)
          _ = waited
        }
      } catch {
        fail("\(rawValue): send threw \(error)")
      }
      source.finish()
      await task.value
    case .asyncChannel:
      let channel = AsyncChannel<Int>()
      let task = Task {
        for await element in channel { consumer.receive(element) }
      }
      for i in 0..<events {
        if i & 255 == 0 { progress.generated.store(i, ordering: .relaxed) }
        await channel.send(i)
      }
      channel.finish()
      await task.value
    }
    let seconds = Double(now() - start) / 1e9
    return [
      ("case", rawValue), ("events", events), ("ns_per_event", seconds * 1e9 / Double(events)),
      ("peak_mib", peakMiB()), ("start_mib", startMiB), ("delivered", consumer.delivered),
      ("all_in_order", consumer.delivered == events && consumer.outOfOrder == 0),
      ("max_in_flight", consumer.maxInFlight), ("seconds", seconds),
    ]
  }
}
