import Synchronization

extension EventProducerType where Event: Sendable {
  /// Delivers on `scheduler` arrays of every event that arrived since the previous array: at most
  /// `maxCount` events each, in order, none lost; the end is delivered after the last array.
  ///
  /// ```swift
  /// events.batches(on: queue, maxCount: 256).observe { batch in socket.write(batch) }
  /// ```
  ///
  /// A burst of events costs one scheduled drain and one array per `maxCount` events. The buffer is
  /// unbounded, like ``deliverOn(_:)``'s.
  /// - Precondition: `maxCount` is at least 1.
  public func batches<S: Scheduler>(on scheduler: S, maxCount: Int = 1024) -> Batches<Self, S> {
    precondition(maxCount >= 1, "batches(on:maxCount:): maxCount must be at least 1, got \(maxCount)")
    return Batches(upstream: self, scheduler: scheduler, maxCount: maxCount)
  }
}

/// The producer that ``EventProducerType/batches(on:maxCount:)`` returns.
/// - Note: thread-safe; observers are called on the scheduler, one array at a time.
public struct Batches<Upstream: EventProducerType, S: Scheduler>: EventProducerType where Upstream.Event: Sendable {
  public typealias Event = [Upstream.Event]

  let upstream: Upstream
  let scheduler: S
  let maxCount: Int

  /// No replay of arrays (the upstream's replay arrives in the first array).
  public var replayLength: Int { 0 }

  /// Registers `observer`, called on the scheduler with each array; `finished` after the last one.
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    let delivery = BatchDelivery<Upstream.Event, S>(
      scheduler: scheduler,
      maxCount: maxCount,
      observer: observer.event,
      finished: observer.finished
    )
    let observation = upstream.observe(
      with: EventObserver({ delivery.send($0) }, finished: { delivery.end() })
    )
    delivery.attach(observation)
    return delivery
  }
}

final class BatchDelivery<Element: Sendable, S: Scheduler>: DisposableType, @unchecked Sendable {
  struct State {
    var buffer: [Element] = []
    var isDraining = false
    var hasEnded = false
    var observer: (([Element]) -> Void)?
    var finished: (() -> Void)?
    var upstream: (any DisposableType)?
  }

  let scheduler: S
  let maxCount: Int
  let state: LockedState<State>
  let disposedFlag = Atomic<Bool>(false)

  init(scheduler: S, maxCount: Int, observer: @escaping ([Element]) -> Void, finished: (() -> Void)?) {
    self.scheduler = scheduler
    self.maxCount = maxCount
    self.state = LockedState(State(observer: observer, finished: finished))
  }

  var isDisposed: Bool { disposedFlag.load(ordering: .acquiring) }

  func attach(_ observation: any DisposableType) {
    let late: (any DisposableType)? = state.withLock { state in
      if state.observer == nil { return observation }
      state.upstream = observation
      return nil
    }
    late?.dispose()
  }

  func send(_ event: Element) {
    let start = state.withLock { state -> Bool in
      guard state.observer != nil, !state.hasEnded else { return false }
      state.buffer.append(event)
      if state.isDraining { return false }
      state.isDraining = true
      return true
    }
    if start { scheduler.schedule { self.drain() } }
  }

  func end() {
    let start = state.withLock { state -> Bool in
      guard state.observer != nil, !state.hasEnded else { return false }
      state.hasEnded = true
      if state.isDraining { return false }
      state.isDraining = true
      return true
    }
    if start { scheduler.schedule { self.drain() } }
  }

  enum Step {
    case deliver(([Element]) -> Void, [Element])
    case finish((() -> Void)?, (any DisposableType)?)
    case stop
  }

  func drain() {
    while true {
      let step = state.withLock { state -> Step in
        guard let observer = state.observer else { return .stop }
        if state.buffer.isEmpty {
          if state.hasEnded {
            let finished = state.finished
            let upstream = state.upstream
            state.observer = nil
            state.finished = nil
            state.upstream = nil
            return .finish(finished, upstream)
          }
          state.isDraining = false
          return .stop
        }
        if state.buffer.count <= maxCount {
          var taken: [Element] = []
          swap(&taken, &state.buffer)
          return .deliver(observer, taken)
        }
        let taken = Array(state.buffer.prefix(maxCount))
        state.buffer.removeFirst(maxCount)
        return .deliver(observer, taken)
      }
      switch step {
      case .stop:
        return
      case .deliver(let observer, let batch):
        guard !isDisposed else { return }
        observer(batch)
      case .finish(let finished, let upstream):
        disposedFlag.store(true, ordering: .releasing)
        upstream?.dispose()
        finished?()
        return
      }
    }
  }

  func dispose() {
    disposedFlag.store(true, ordering: .releasing)
    let released = state.withLock { state -> (any DisposableType)? in
      let upstream = state.upstream
      state.observer = nil
      state.finished = nil
      state.upstream = nil
      state.buffer = []
      return upstream
    }
    released?.dispose()
  }
}
