// S3 fanout-10: one producer, 10 observers. AsyncAlgorithms: `share()` to 10 consumer tasks,
// 10,000 events per iteration (~60 µs per event here; an iteration must stay under 2 s).

import AsyncAlgorithms
import Benchmark
import Bond
import OpenCombine

func registerFanout() {
  let events = peerEventsPerIteration

  register("S3", .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let disposables = (0..<10).map { _ in producer.observe { sink.sum &+= $0 } }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    for disposable in disposables { disposable.dispose() }
    blackHole(sink.sum)
  }

  register("S3", .openCombine, events: events) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellables = (0..<10).map { _ in subject.sink { sink.sum &+= $0 } }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    benchmark.stopMeasurement()
    for cancellable in cancellables { cancellable.cancel() }
    blackHole(sink.sum)
  }

  // S3 fanout-10: `share()`, 10 consumers. Each consumer makes its iterator, then reports in;
  // sending starts once all 10 are in.
  let fanoutEvents = 10_000
  registerAsync("S3", .asyncAlgorithms, events: fanoutEvents) { benchmark in
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

  register("S3", .closure) { benchmark in
    let sink = Sink()
    let o0: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o1: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o2: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o3: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o4: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o5: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o6: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o7: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o8: (Int) -> Void = opaque { sink.sum &+= $0 }
    let o9: (Int) -> Void = opaque { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      o0(i)
      o1(i)
      o2(i)
      o3(i)
      o4(i)
      o5(i)
      o6(i)
      o7(i)
      o8(i)
      o9(i)
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  registerFloor("S3") { sink in
    let observers: [(Int) -> Void] = (0..<10).map { _ in opaque { sink.sum &+= $0 } }
    let (o0, o1, o2, o3, o4) = (observers[0], observers[1], observers[2], observers[3], observers[4])
    let (o5, o6, o7, o8, o9) = (observers[5], observers[6], observers[7], observers[8], observers[9])
    return [
      { value in
        o0(value)
        o1(value)
        o2(value)
        o3(value)
        o4(value)
        o5(value)
        o6(value)
        o7(value)
        o8(value)
        o9(value)
      }
    ]
  }

  register("S3", .naive) { benchmark in
    let sink = Sink()
    let subject = NaiveSubject<Int>()
    for _ in 0..<10 { subject.observe { sink.sum &+= $0 } }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { subject.send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}
