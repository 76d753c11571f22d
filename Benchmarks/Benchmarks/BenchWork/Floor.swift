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
