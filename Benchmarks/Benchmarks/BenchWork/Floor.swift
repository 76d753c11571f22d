// Baseline (c), the `floor` of the benchmark suite (BondBenchmarks/Floor.swift) and of
// perf/instructions: a closure call between the uncontended atomic pair that any serialized send
// needs, mirroring the least Bond's single-source `next` does (`EventProducer+Drain.swift`).
import Synchronization

/// One serialized source of `Int`s: the uncontended atomic pair around a closure call.
///
/// Not generic: a generic class stores its closure at the most general abstraction, and every call
/// would go through a reabstraction thunk that no engine's specialized path pays.
///
/// `@unchecked Sendable`: `target` is called only between the acquiring compare-exchange and the
/// releasing subtraction, one sender at a time (the benchmarks send from one thread anyway).
public final class FloorSender: @unchecked Sendable {
  /// 0: nobody is delivering; 1: a sender holds the right to call `target`.
  @usableFromInline let wip = Atomic<Int>(0)
  @usableFromInline let target: (Int) -> Void

  /// `target` should be opaque to the optimizer (a closure stored somewhere, as a user's is).
  public init(_ target: @escaping (Int) -> Void) {
    self.target = target
  }

  /// One serialized send: the compare-exchange, `target(event)`, the subtraction.
  @inlinable @inline(__always)
  public func send(_ event: Int) {
    // acquiring: takes what the previous sender's subtraction released (Bond's compare-exchange
    // 0 → 1). On x86-64 every read-modify-write is one locked instruction, whatever the ordering.
    guard wip.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
      return contended()
    }
    target(event)
    // releasing: hands what `target` wrote to the next sender (Bond's subtraction back to 0); a
    // non-zero result would be work queued meanwhile, which only a second thread can queue.
    if wip.wrappingSubtract(1, ordering: .releasing).newValue != 0 { contended() }
  }

  @usableFromInline @inline(never)
  func contended() {
    preconditionFailure("FloorSender: the floor is the uncontended path; send from one thread")
  }
}

/// The floor of an operator that serializes several sources (issue 23, item 4: `combineLatest`,
/// `zip`, `merge`): each source's atomic pair (a ``FloorSender``) around a second pair shared by the
/// sources (the operator's inbox), around the call of the observer with the latest value of each of
/// the first two sources. Bond's tuple operators pay both pairs: the source's for the single-source
/// rule, the inbox's to serialize the sources. `BondTwoPairs` times it beside one pair and
/// Bond's `combineLatest`, `zip` and `merge`.
public enum TwoPairFloor {
  /// Sends `0..<events`, round-robin over `sources` sources, each through its pair and the shared one.
  @inline(never)
  public static func run(sources: Int, events: Int, _ observer: @escaping (Int, Int) -> Void) {
    let latest = UnsafeMutablePointer<(Int, Int)>.allocate(capacity: 1)
    latest.initialize(to: (0, 0))
    defer { latest.deallocate() }
    let mask = sources - 1
    precondition(sources == 2 || sources == 8, "TwoPairFloor.run: 2 or 8 sources, got \(sources)")
    let inbox = FloorSender { value in
      if value & 1 == 0 { latest.pointee.0 = value } else { latest.pointee.1 = value }
      observer(latest.pointee.0, latest.pointee.1)
    }
    let senders = (0..<sources).map { _ in FloorSender { inbox.send($0) } }
    if mask == 1 {
      let (first, second) = (senders[0], senders[1])
      for i in 0..<events { if i & 1 == 0 { first.send(i) } else { second.send(i) } }
    } else {
      for i in 0..<events { senders[i & mask].send(i) }
    }
  }
}
