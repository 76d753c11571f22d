import Foundation
import Synchronization
@testable import Bond

/// An event of `UpstreamTransitionStressTests`: who sent it, its place in that sender's sequence,
/// and the epoch (a cycle count of the test) that the sender read just before `next`.
struct TransitionStamp: Sendable, Hashable {
  /// The `thread` of every event of the operator's other source (`b`).
  static let otherSource = -1

  let thread: Int
  let sequence: Int
  let epoch: Int
}

/// What an observer of the operator received: an event of `a`, or the end.
enum TransitionEntry: Sendable, Equatable {
  case event(TransitionStamp)
  case end
}

/// The multi-source operators whose upstreams the tests put through transitions.
enum TransitionCombiner: CaseIterable, Sendable {
  case merge, combineLatest, zip

  /// Observes `merge([a, b])`, `combineLatest(a, b)` or `zip(a, b)`, and calls `onA` with each event
  /// of `a` the operator delivers, once, in the operator's delivery order: merge's events of `a`;
  /// combineLatest's first component each time it changes (every event of `a` is a new stamp, and
  /// makes a tuple once `b` has sent); zip's first component. `finished` at the operator's end; or,
  /// when `registered` is given, `registered` once its registration (replays included) is over.
  func observe(
    _ a: EventProducer<TransitionStamp>,
    _ b: EventProducer<TransitionStamp>,
    onA: @escaping (TransitionStamp) -> Void,
    finished: @escaping () -> Void = {},
    registered: (() -> Void)? = nil
  ) -> any DisposableType {
    switch self {
    case .merge:
      return Self.observe(
        Bond.merge([a, b]),
        { if $0.thread != TransitionStamp.otherSource { onA($0) } },
        finished,
        registered
      )
    case .combineLatest:
      var last: TransitionStamp?  // touched only by this observation's deliveries
      return Self.observe(
        Bond.combineLatest(a, b),
        { x, _ in
          guard x != last else { return }
          last = x
          onA(x)
        },
        finished,
        registered
      )
    case .zip:
      return Self.observe(Bond.zip(a, b), { x, _ in onA(x) }, finished, registered)
    }
  }

  private static func observe<P: EventProducerType>(
    _ producer: P,
    _ observer: @escaping (P.Event) -> Void,
    _ finished: @escaping () -> Void,
    _ registered: (() -> Void)?
  ) -> any DisposableType {
    if let registered { return producer.observe(observer, registered: registered) }
    return producer.observe(observer, finished: finished)
  }
}

/// A thread-safe log of stamps (``Recorder``'s `count` and `last` for the waits).
typealias StampLog = Recorder<TransitionStamp>

/// One observation of a test, made and disposed on the churning thread: what it received, whether
/// it received an event sent after its `observe` returned, and the deliveries that started after
/// its `dispose()` returned.
final class ChurnedObservation: Sendable {
  /// The epoch the churner publishes once `observe` has returned.
  let cycle: Int
  let log = StampLog()
  /// Deliveries that started after `dispose()` had returned (one in flight may: guarantee 3).
  let late = Counter()
  private let disposedReturned = Atomic<Bool>(false)
  private let sawLiveEvent = Atomic<Bool>(false)
  private let observation = Locked<(any DisposableType)?>(nil)
  /// Whether every delivery so far should stall now and then (a slow observer: the senders queue).
  private let stalls: Bool
  private let deliveries = Counter()

  init(cycle: Int, stalls: Bool = false) {
    self.cycle = cycle
    self.stalls = stalls
  }

  /// The observer: records `stamp`, counts it as late if `dispose()` has returned.
  func receive(_ stamp: TransitionStamp) {
    // acquiring: pairs with `dispose()`'s releasing store, after the observation's dispose returned.
    if disposedReturned.load(ordering: .acquiring) { late.increment() }
    log.add(stamp)
    // releasing: the churner that sees it reads the log under its lock anyway; ordered for clarity.
    if stamp.epoch >= cycle { sawLiveEvent.store(true, ordering: .releasing) }
    deliveries.increment()
    if stalls && deliveries.count % 64 == 0 { usleep(100) }
  }

  /// Whether it received an event sent after its `observe` returned.
  var sawLive: Bool { sawLiveEvent.load(ordering: .acquiring) }

  func started(_ observation: any DisposableType) { self.observation.withLock { $0 = observation } }

  func dispose() {
    observation.value?.dispose()
    disposedReturned.store(true, ordering: .releasing)
  }
}

/// An object captured by an observer's closure: its release shows that the closure was released.
final class TransitionToken: Sendable {}

/// Weak references to the tokens of many observations, to check that all were released.
final class WeakTokens: @unchecked Sendable {
  private struct Reference { weak var token: TransitionToken? }
  private let lock = NSLock()
  private var references: [Reference] = []

  /// Makes a token whose release the log follows.
  func make() -> TransitionToken {
    let token = TransitionToken()
    lock.lock()
    references.append(Reference(token: token))
    lock.unlock()
    return token
  }

  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return references.count
  }

  var alive: Int {
    lock.lock()
    defer { lock.unlock() }
    return references.filter { $0.token != nil }.count
  }
}

/// The sequence numbers of `thread`'s events in `stamps`, in their order.
func sequences(of thread: Int, in stamps: [TransitionStamp]) -> [Int] {
  stamps.filter { $0.thread == thread }.map(\.sequence)
}

/// Sends events numbered from 0, calling `send(sequence, epoch)` with the epoch read just before,
/// until `count` are sent or `stop()`: at most `limit` of them per epoch (then it waits for the next
/// one) unless `unpaced()`, so that a flood spreads over the cycles of the thread that advances the
/// epoch and its backlog stays bounded.
/// - Returns: at index e, the sequence number of the first event sent with an epoch >= e.
@discardableResult
func sendPaced(
  count: Int = .max,
  limit: Int,
  epoch: borrowing Atomic<Int>,
  unpaced: () -> Bool = { false },
  stop: () -> Bool = { false },
  _ send: (_ sequence: Int, _ epoch: Int) -> Void
) -> [Int] {
  var firsts = [0]
  var sequence = 0
  while sequence < count && !stop() {
    let current = epoch.load(ordering: .acquiring)
    while firsts.count <= current { firsts.append(sequence) }
    guard sequence - firsts[current] < limit || unpaced() else {
      usleep(20)
      continue
    }
    send(sequence, current)
    sequence += 1
  }
  return firsts
}

/// The last sequence number whose `next` returned, of threads 1 and 2 of a test.
final class SendProgress: Sendable {
  private let first = Atomic<Int>(-1)
  private let second = Atomic<Int>(-1)

  /// Called by `thread` once its `next` of `sequence` returned.
  func sent(_ sequence: Int, by thread: Int) {
    // releasing: a thread that reads it and then calls finish() does so after that `next` returned.
    if thread == 1 {
      first.store(sequence, ordering: .releasing)
    } else {
      second.store(sequence, ordering: .releasing)
    }
  }

  func last(_ thread: Int) -> Int {
    thread == 1 ? first.load(ordering: .acquiring) : second.load(ordering: .acquiring)
  }
}
