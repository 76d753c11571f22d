import BondTesting
import Dispatch
import Testing

@Suite struct SendContentsOfTests {
  @Test func sendsEveryElementThenFinishes() async throws {
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
    #expect(log.items == ["got 0", "got 1", "got 2", "end"])
    #expect(producer.isFinished)
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
}
