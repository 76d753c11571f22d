// Scale curves (perf/curves): how the cost per event grows with the number of observers, the replay
// length on subscribe, the length of an operator chain and the arity of combineLatest, for Bond and
// (where it has the feature) OpenCombine. Prints one JSON object per point:
//   {"curve": "observers", "x": 10, "engine": "Bond", "ns": 31.2}
// Times are wall clock, best of 3 runs of each point, in one process: compare within one run.
import Bond
import Dispatch
import OpenCombine

final class Sum { var value = 0 }
let sum = Sum()

@inline(never) func consume(_ value: Int) { if value == 42 { print("") } }

/// Best of 3 of `body`, in ns per unit of work (`units` events or subscriptions).
func measure(_ units: Int, _ body: () -> Void) -> Double {
  var best = Double.infinity
  for _ in 0..<3 {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / Double(units))
  }
  return best
}

func point(_ curve: String, _ x: Int, _ engine: String, _ ns: Double) {
  print("{\"curve\": \"\(curve)\", \"x\": \(x), \"engine\": \"\(engine)\", \"ns\": \(ns)}")
}

let events = 200_000

// Observers: one event to N observers, ns per event.
for n in [1, 10, 100, 1_000] {
  let scaled = max(1_000, events / n)
  do {
    let producer = EventProducer<Int>()
    let observations = (0..<n).map { _ in producer.observe { sum.value &+= $0 } }
    point("observers", n, "Bond", measure(scaled) { for i in 0..<scaled { producer.next(i) } })
    observations.forEach { $0.dispose() }
  }
  do {
    let subject = PassthroughSubject<Int, Never>()
    let cancellables = (0..<n).map { _ in subject.sink { sum.value &+= $0 } }
    point("observers", n, "OpenCombine", measure(scaled) { for i in 0..<scaled { subject.send(i) } })
    cancellables.forEach { $0.cancel() }
  }
}

// Replay: subscribe (receiving the full replay) and dispose, ns per subscription.
for n in [1, 16, 1_024] {
  let producer = EventProducer<Int>(replayLength: n)
  for i in 0..<n { producer.next(i) }
  let subscriptions = max(200, 20_000 / n)
  point(
    "replay",
    n,
    "Bond",
    measure(subscriptions) {
      for _ in 0..<subscriptions { producer.observe { sum.value &+= $0 }.dispose() }
    }
  )
}
do {  // OpenCombine's replay of 1: CurrentValueSubject
  let subject = CurrentValueSubject<Int, Never>(0)
  point(
    "replay",
    1,
    "OpenCombine",
    measure(20_000) {
      for _ in 0..<20_000 { subject.sink { sum.value &+= $0 }.cancel() }
    }
  )
}

// Chain: 1, 5, 20 `map` stages, ns per event.
do {
  let p = EventProducer<Int>()
  let chains: [(Int, any DisposableType)] = [
    (1, p.map { $0 &+ 1 }.observe { sum.value &+= $0 })
  ]
  point("chain", 1, "Bond", measure(events) { for i in 0..<events { p.next(i) } })
  chains.forEach { $0.1.dispose() }
  let five = p.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .observe { sum.value &+= $0 }
  point("chain", 5, "Bond", measure(events) { for i in 0..<events { p.next(i) } })
  five.dispose()
  let ten = p.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
  let twenty = ten.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .observe { sum.value &+= $0 }
  point("chain", 20, "Bond", measure(events) { for i in 0..<events { p.next(i) } })
  twenty.dispose()
}
do {
  let s = PassthroughSubject<Int, Never>()
  let scaled = events / 4
  let one = s.map { $0 &+ 1 }.sink { sum.value &+= $0 }
  point("chain", 1, "OpenCombine", measure(scaled) { for i in 0..<scaled { s.send(i) } })
  one.cancel()
  let five = s.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .sink { sum.value &+= $0 }
  point("chain", 5, "OpenCombine", measure(scaled) { for i in 0..<scaled { s.send(i) } })
  five.cancel()
  let ten = s.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
  let twenty = ten.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }.map { $0 &+ 1 }
    .sink { sum.value &+= $0 }
  point("chain", 20, "OpenCombine", measure(scaled) { for i in 0..<scaled { s.send(i) } })
  twenty.cancel()
}

// combineLatest arity 2, 5, 10 (OpenCombine has none): round-robin sends, ns per event.
do {
  let p = (0..<10).map { _ in EventProducer<Int>() }
  let two = combineLatest(p[0], p[1]).observe { sum.value &+= $0.0 }
  point("combineLatest", 2, "Bond", measure(events) { for i in 0..<events { p[i % 2].next(i) } })
  two.dispose()
  let five = combineLatest(p[0], p[1], p[2], p[3], p[4]).observe { sum.value &+= $0.0 }
  point("combineLatest", 5, "Bond", measure(events) { for i in 0..<events { p[i % 5].next(i) } })
  five.dispose()
  let ten = combineLatest(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]).observe { sum.value &+= $0.0 }
  point("combineLatest", 10, "Bond", measure(events) { for i in 0..<events { p[i % 10].next(i) } })
  ten.dispose()
}
consume(sum.value)
