// Issue 23, item 4: how far the operators that serialize several sources (S4 combineLatest, S15
// zip, S5 merge-8) can go. Each of them pays two atomic pairs per event: the source's (the
// single-source rule: one delivery of a producer at a time) and the inbox's (one delivery of the
// operator at a time, whichever source sends). This times, interleaved in one process:
//   floor   one pair per event (`FloorSender`, the table's floor column)
//   floor2  two nested pairs per event, nothing else (`TwoPairFloor`)
//   Bond    the operator itself, as S4 / S15 / S5 send
// and prints each round's ns per event and the ratios to the floor.
//
//   swift run -c release --package-path Benchmarks BondTwoPairs [EVENTS] [ROUNDS]
import BenchWork
import Bond
import Dispatch

final class Sum: @unchecked Sendable { var value = 0 }

let arguments = CommandLine.arguments
let events = arguments.count > 1 ? Int(arguments[1]) ?? 10_000_000 : 10_000_000
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5

/// The ns per event of `body`, which sends `events` events.
func time(_ body: () -> Void) -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(events)
}

@inline(never) func opaque<T>(_ value: T) -> T { value }

let sum = Sum()
let pairObserver: (Int, Int) -> Void = opaque { sum.value &+= $0 &+ $1 }
let observer: (Int) -> Void = opaque { sum.value &+= $0 }

let cases: [(String, () -> Void)] = [
  (
    "floor",
    {
      let latest = UnsafeMutablePointer<(Int, Int)>.allocate(capacity: 1)
      latest.initialize(to: (0, 0))
      defer { latest.deallocate() }
      let first = FloorSender {
        latest.pointee.0 = $0
        pairObserver(latest.pointee.0, latest.pointee.1)
      }
      let second = FloorSender {
        latest.pointee.1 = $0
        pairObserver(latest.pointee.0, latest.pointee.1)
      }
      for i in 0..<events { if i & 1 == 0 { first.send(i) } else { second.send(i) } }
    }
  ),
  ("floor2", { TwoPairFloor.run(sources: 2, events: events, pairObserver) }),
  (
    "S4 combineLatest",
    {
      let (a, b) = (EventProducer<Int>(), EventProducer<Int>())
      let observation = combineLatest(a, b).observe { pairObserver($0, $1) }
      for i in 0..<events { if i & 1 == 0 { a.next(i) } else { b.next(i) } }
      observation.dispose()
    }
  ),
  (
    "S15 zip",
    {
      let (a, b) = (EventProducer<Int>(), EventProducer<Int>())
      let observation = zip(a, b).observe { pairObserver($0, $1) }
      for i in 0..<events { if i & 1 == 0 { a.next(i) } else { b.next(i) } }
      observation.dispose()
    }
  ),
  (
    "floor (8 sources)",
    {
      let senders = (0..<8).map { _ in FloorSender(observer) }
      for i in 0..<events { senders[i & 7].send(i) }
    }
  ),
  ("floor2 (8 sources)", { TwoPairFloor.run(sources: 8, events: events) { value, _ in observer(value) } }),
  (
    "S5 merge-8",
    {
      let sources = (0..<8).map { _ in EventProducer<Int>() }
      let observation = merge(sources).observe { observer($0) }
      for i in 0..<events { sources[i & 7].next(i) }
      observation.dispose()
    }
  ),
]

print("ns per event, \(events) events per case, \(rounds) interleaved rounds")
var results = [String: [Double]]()
for _ in 0..<rounds {
  for (name, body) in cases { results[name, default: []].append(time(body)) }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print("| case | median ns | / floor | / floor2 | rounds |")
print("|---|---:|---:|---:|---|")
for (name, _) in cases {
  let eight = name.contains("8")
  let floor = median(results[eight ? "floor (8 sources)" : "floor"]!)
  let floor2 = median(results[eight ? "floor2 (8 sources)" : "floor2"]!)
  let value = median(results[name]!)
  let roundsText = results[name]!.map { String(format: "%.2f", $0) }.joined(separator: ", ")
  print(
    "| \(name) | \(String(format: "%.2f", value)) | \(String(format: "%.2fx", value / floor)) | "
      + "\(String(format: "%.2fx", value / floor2)) | \(roundsText) |"
  )
}
if sum.value == 42 { print("") }
