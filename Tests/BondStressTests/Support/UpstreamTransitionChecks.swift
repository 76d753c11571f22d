import Foundation
import Testing

// The checks of `UpstreamTransitionStressTests`, on what its observers received.

/// Checks that `values` is exactly `expected` (a thread's sequence numbers: once each, in order);
/// on a mismatch, records an issue naming the first differing position, not the whole arrays.
/// - Returns: whether they match.
@discardableResult
func expectSequence(_ values: [Int], _ expected: Range<Int>, _ what: String) -> Bool {
  guard values.elementsEqual(expected) else {
    let position =
      values.indices.first { $0 >= expected.count || values[$0] != expected.lowerBound + $0 } ?? values.count
    let found = position < values.count ? "\(values[position])" : "nothing"
    Issue.record(
      "\(what): \(values.count) of \(expected.count) events; at \(position) \(found), not \(expected.lowerBound + position)"
    )
    return false
  }
  return true
}

/// Waits for the operator's order of `a`'s events (two flooding threads, `perThread` each) and checks
/// it: every event once, each thread's in order.
/// - Returns: the order, or `nil` when it is wrong (the test stops there).
func checkOperatorOrder(_ order: StampLog, perThread: Int, round: Int) -> [TransitionStamp]? {
  #expect(waitUntil(seconds: 30) { order.count >= 2 * perThread }, "round \(round): every event reaches the operator")
  let delivered = order.items
  let complete = (0..<2).map { thread in
    expectSequence(sequences(of: thread, in: delivered), 0..<perThread, "round \(round), thread \(thread)")
  }
  return complete.allSatisfy { $0 } && delivered.count == 2 * perThread ? delivered : nil
}

/// Checks each churned observation's log against `order` (the operator's): a contiguous run, from
/// no later than the first event sent after its `observe` returned; the last one (never disposed
/// while the floods ran) to the end of `order`; at most one delivery after `dispose()` returned.
func checkRuns(_ observers: [ChurnedObservation], of order: [TransitionStamp], round: Int) {
  var positions: [TransitionStamp: Int] = [:]
  for (position, stamp) in order.enumerated() { positions[stamp] = position }
  for (index, observer) in observers.enumerated() {
    let isLast = index == observers.count - 1
    // The first event of the operator's order sent after this observe returned: it and every
    // later one must reach the observer until it is disposed.
    let firstLive = order.firstIndex { $0.epoch >= observer.cycle }
    if isLast, firstLive != nil {
      #expect(
        waitUntil(seconds: 10) { observer.log.last == order.last },
        "round \(round): the last observer gets to the end"
      )
    }
    let run = observer.log.items
    #expect(observer.late.count <= 1, "round \(round): no delivery starts after dispose() returned")
    guard let head = run.first else { continue }
    guard let start = positions[head], start + run.count <= order.count,
      order[start..<(start + run.count)].elementsEqual(run)
    else {
      Issue.record("round \(round), cycle \(observer.cycle): not a contiguous run of the operator's order")
      continue
    }
    if let firstLive, start + run.count - 1 >= firstLive {
      #expect(
        start <= firstLive,
        "round \(round), cycle \(observer.cycle): an event sent after observe returned is missing"
      )
    }
    if isLast, firstLive != nil { #expect(start + run.count == order.count) }
  }
}

/// Checks the observations of `operatorObservationsReplacedWhileFloodsRun`: each received a live
/// event, at most one delivery after its `dispose()` returned, and of each flooding thread a run of
/// consecutive events, from no later than `firstOfEpoch[thread][cycle]` (its first event sent after
/// that observation's `observe` returned) if it received a later one.
func checkReplacedObservations(_ observers: [ChurnedObservation], firstOfEpoch firsts: [[Int]]) {
  for observer in observers {
    let cycle = observer.cycle
    let combiner = TransitionCombiner.allCases[cycle % 3]
    #expect(observer.sawLive, "cycle \(cycle), \(combiner): an event sent after observe returned arrives")
    #expect(observer.late.count <= 1, "cycle \(cycle): no delivery starts after dispose() returned")
    let log = observer.log.items
    for thread in 0..<2 {
      let received = sequences(of: thread, in: log)
      // No gap, no duplicate, in order.
      expectSequence(
        received,
        (received.first ?? 0)..<((received.first ?? 0) + received.count),
        "cycle \(cycle), thread \(thread)"
      )
      // Its first event sent after observe returned: received, if a later one was.
      if cycle < firsts[thread].count, let first = received.first, let last = received.last,
        last >= firsts[thread][cycle]
      {
        #expect(
          first <= firsts[thread][cycle],
          "cycle \(cycle), \(combiner), thread \(thread): an event sent after observe returned is missing"
        )
      }
    }
  }
}

/// Checks what `upstreamFinishingUnderAFloodEndsTheOperatorOnceAfterItsEvents` received in one
/// round: one end, the last entry; of each thread, its first events in order, once, at least up to
/// `returnedAtFinish[thread]` (its last event whose `next` returned before `finish()` was called).
func checkEnd(_ entries: [TransitionEntry], returnedAtFinish: [Int], round: Int) {
  #expect(entries.filter { $0 == .end }.count == 1 && entries.last == .end, "round \(round): one end, the last")
  let stamps = entries.compactMap { if case .event(let stamp) = $0 { stamp } else { nil } }
  for thread in 0..<3 {
    let received = sequences(of: thread, in: stamps)
    expectSequence(received, 0..<received.count, "round \(round), thread \(thread): its first events in order, once")
    #expect(received.count > returnedAtFinish[thread], "round \(round): every event sent before finish() arrives")
  }
}
