// S10: 2 threads send 500k events each into one producer with one observer; each run is timed from
// the first send until the observer has counted every event (a send may return before a worker
// delivers what it found queued). Prints the median and every run, in ns per event.
import Bond
import Foundation
import Synchronization

final class Sink: @unchecked Sendable { var sum = 0; let count = Atomic<Int>(0) }

// S10: 2 threads x 500k events into one producer with one observer; timed until every event is delivered.
func runOnce(perThread: Int) -> Double {
  let sink = Sink()
  let producer = EventProducer<Int>()
  let disposable = producer.observe { sink.sum &+= $0; sink.count.add(1, ordering: .relaxed) }
  let start = DispatchTime.now().uptimeNanoseconds
  let group = DispatchGroup()
  for _ in 0..<2 {
    let thread = Thread {
      for i in 0..<perThread { producer.next(i) }
      group.leave()
    }
    group.enter()
    thread.start()
  }
  group.wait()
  while sink.count.load(ordering: .acquiring) < 2 * perThread { sched_yield() }
  let end = DispatchTime.now().uptimeNanoseconds
  disposable.dispose()
  return Double(end - start) / Double(2 * perThread)
}
let runs = Int(CommandLine.arguments.dropFirst().first ?? "5") ?? 5
var results: [Double] = []
for _ in 0..<runs { results.append(runOnce(perThread: 500_000)) }
results.sort()
print(String(format: "median %.1f ns/event; runs %@", results[results.count / 2], results.map { String(format: "%.0f", $0) }.joined(separator: " ")))
