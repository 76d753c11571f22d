// S2 chain: producer -> map {$0+1} -> filter {even} -> map {$0*2} -> observer. closure: the chain
// fused by hand into one closure; naive: one subject per stage.

import AsyncAlgorithms
import Benchmark
import Bond
import OpenCombine

func registerChain() {
  let events = peerEventsPerIteration

  register("S2", .bond) { benchmark in
    let sink = Sink()
    let producer = EventProducer<Int>()
    let disposable =
      producer
      .map { $0 + 1 }
      .filter { $0 % 2 == 0 }
      .map { $0 * 2 }
      .observe { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { producer.next(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }

  register("S2", .openCombine, events: events) { benchmark in
    let sink = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable =
      subject
      .map { $0 + 1 }
      .filter { $0 % 2 == 0 }
      .map { $0 * 2 }
      .sink { sink.sum &+= $0 }
    benchmark.startMeasurement()
    for i in 0..<events { subject.send(i) }
    benchmark.stopMeasurement()
    cancellable.cancel()
    blackHole(sink.sum)
  }

  registerAsync("S2", .asyncAlgorithms, events: events) { benchmark in
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

  register("S2", .closure) { benchmark in
    let sink = Sink()
    // The chain fused by hand into one closure.
    let observer: (Int) -> Void = opaque { value in
      let plusOne = value + 1
      if plusOne % 2 == 0 { sink.sum &+= plusOne * 2 }
    }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { observer(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  registerFloor("S2") { sink in
    [
      { value in
        let plusOne = value + 1
        if plusOne % 2 == 0 { sink.sum &+= plusOne * 2 }
      }
    ]
  }

  register("S2", .naive) { benchmark in
    let sink = Sink()
    // One subject per stage, as a naive operator implementation chains them.
    let source = NaiveSubject<Int>()
    let mapped = NaiveSubject<Int>()
    let filtered = NaiveSubject<Int>()
    source.observe { mapped.send($0 + 1) }
    mapped.observe { if $0 % 2 == 0 { filtered.send($0) } }
    filtered.observe { sink.sum &+= $0 * 2 }
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations { source.send(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }
}
