import Synchronization

/// A hot source of events: ``next(_:)`` sends an event to every observer.
///
/// ```swift
/// let producer = EventProducer<Int>(replayLength: 1)
/// producer.next(1)
/// let observation = producer.observe { print($0) }  // prints 1 (the replay)
/// producer.next(2)                                   // prints 2
/// observation.dispose()
/// ```
///
/// Guarantees (the whole statement: <doc:Contract>):
/// - `next` may be called from any number of threads at once; every event reaches every observer
///   registered before it and not disposed; observers are never called concurrently; events from
///   one thread arrive in the order it sent them; every observer sees the same order.
/// - A `next` from inside an observer is queued and delivered after the current event has reached
///   every observer (no recursion, no deadlock).
/// - `dispose()` never waits: after it returns, no new delivery to that observer starts (one already
///   running on another thread may run to its end); from inside a delivery it takes effect at once.
/// - A new observer first receives the last `min(replayLength, sent)` events, then every later event,
///   with no duplicate and no gap.
/// - An observation does not keep the producer alive (except a managed one, see
///   ``init(replayLength:producer:)``); a deallocated producer releases its observers.
///
/// - Note: thread-safe. Sending to a producer that no other thread is sending to takes no lock and
///   allocates nothing (see `EventProducer+Drain.swift` for the design).
public final class EventProducer<Event>: EventProducerType, BindableType {
  /// How many of the latest events a new observer receives at registration.
  public let replayLength: Int

  /// Who delivers: the one serializer (`DeliveryRights.swift`). Whoever takes them performs the
  /// work queued in `pending` until the count is back to 0, or leaves them vacant.
  @usableFromInline let rights = DeliveryRights()
  /// The storage of the pending state (``withPending(_:)``), made when first needed (the first contended or reentrant send,
  /// a managed lifetime, a binding): a producer that is only ever sent to from one thread at a time
  /// costs no lock allocation.
  @usableFromInline let pendingStorage = LazyObjectSlot<LockStorage<Pending>>()
  /// Live observations (observe calls minus disposals), for `observerCount`.
  @usableFromInline let liveObservers = Atomic<Int>(0)
  /// Set by a `dispose()` that found another thread holding the delivery rights; the drainer checks
  /// it between work items and purges at once, so a disposed observer's closure is released after
  /// the delivery running now, not behind the whole backlog.
  @usableFromInline let purgeRequested = Atomic<Bool>(false)
  /// Set by the first `finish()` (``isFinished``); the end itself travels as `Work.finish`.
  @usableFromInline let finishRequested = Atomic<Bool>(false)
  /// Flow control: this producer's pressure (the `.backpressure` stages its observations reach),
  /// created when first needed, so that a producer nobody puts under pressure costs nothing.
  @usableFromInline let flowGate = FlowGateSlot()

  // Drainer-owned state: touched only by the thread holding the delivery rights, which the
  // acquire/release operations on `rights` hand from one drainer to the next.
  /// The observers in registration order: the first in `firstObserver` (no buffer to allocate for
  /// a producer with one observer), the others in `otherObservers` (`observersCapacity` slots).
  @exclusivity(unchecked) @usableFromInline var firstObserver: Unmanaged<ObserverBox<Event>>?
  @exclusivity(unchecked) @usableFromInline var otherObservers: UnsafeMutablePointer<Unmanaged<ObserverBox<Event>>>?
  @exclusivity(unchecked) @usableFromInline var observersCount = 0
  @exclusivity(unchecked) @usableFromInline var observersCapacity = 0
  @exclusivity(unchecked) @usableFromInline var replay: ReplayBuffer<Event>
  /// The drainer's empty queue, swapped with `pending.queue` to take a whole batch in one lock.
  @exclusivity(unchecked) @usableFromInline var batch = WorkQueue<SentWork<Work>>()
  /// Whether the end has been delivered: later events reach nobody and enter no replay; a later
  /// observer gets the replay, then the end.
  @exclusivity(unchecked) @usableFromInline var hasEnded = false
  /// Whether a delivered event enters the replay: `replayLength > 0` until the end.
  @exclusivity(unchecked) @usableFromInline var recordsReplay: Bool

  @usableFromInline let isManaged: Bool

  /// What the drainer performs, in order.
  @usableFromInline
  enum Work {
    case event(Event)
    case register(ObserverBox<Event>)
    case purge
    case finish
    /// Resumes a sender awaiting the delivery of the work queued before it (`send(contentsOf:)`),
    /// unless its task was cancelled meanwhile.
    case resume(DeliveryWaiter)
  }

  @usableFromInline
  struct Pending {
    @usableFromInline var queue = WorkQueue<SentWork<Work>>()
    /// The latest value sent, kept by ``Observable`` in the same critical section as the queue so
    /// that its `value` always equals the last event in delivery order.
    @usableFromInline var latest: Event?
    /// Managed lifetime, bindings to this producer and the bridge's disposable: under the same lock
    /// (taken briefly and rarely for it), so that a producer costs one lock allocation at most.
    @usableFromInline var lifecycle = Lifecycle()
    @inlinable init() {}
  }

  /// Work sent while another thread (or a reentrant call) holds the delivery rights, and the
  /// lifecycle (``withLifecycle(_:)``), under one lock, made on first use (see `pendingStorage`).
  /// Runs `body` under its lock.
  @inlinable
  func withPending<Result>(_ body: (inout Pending) throws -> Result) rethrows -> Result {
    // acquiring (the slot's load): sees the storage initialized by the thread that made it.
    // Unretained: the slot holds the storage for the producer's life, and `self` is alive here. A
    // retain and a release would be two more read-modify-writes on the storage's first cache line,
    // the one that the queue and the lock are on, which contended senders and the holder share (S10).
    let storage = pendingStorage.loadUnmanaged() ?? makePendingStorage()
    return try storage._withUnsafeGuaranteedRef { try $0.withLock(body) }
  }

  /// Makes the pending state's storage on first use (or returns the one another thread made first).
  // Never inlined: off the path of every send that finds the storage made.
  @inlinable @inline(never)
  func makePendingStorage() -> Unmanaged<LockStorage<Pending>> {
    Unmanaged.passUnretained(pendingStorage.storeIfNil(LockStorage.make(Pending())))
  }

  /// Runs `body` on the lifecycle state, under the pending state's lock (never nested in it).
  @inlinable
  func withLifecycle<Result>(_ body: (inout Lifecycle) -> Result) -> Result {
    withPending { body(&$0.lifecycle) }
  }

  @usableFromInline
  struct Lifecycle {
    /// What a managed producer keeps alive while observed: itself, or its `owner`.
    @usableFromInline var keepAlive: AnyObject?
    /// What a managed producer keeps alive while observed instead of itself (a partition's lane
    /// keeps its ``Partition``, which holds the lane); held weakly the rest of the time.
    @usableFromInline weak var owner: AnyObject?
    @usableFromInline var managedObservers = 0
    @usableFromInline var producerDisposable: (any DisposableType)?
    @usableFromInline var disconnectDisposables: [any DisposableType] = []
    @inlinable init() {}
  }

  /// Creates a producer.
  /// - Parameter replayLength: how many of the latest events a new observer receives first (0 or more).
  public init(replayLength: Int = 0) {
    precondition(
      replayLength >= 0,
      "EventProducer(replayLength:): replayLength must not be negative, got \(replayLength)"
    )
    self.replayLength = replayLength
    self.replay = ReplayBuffer(capacity: replayLength)
    self.recordsReplay = replayLength > 0
    self.isManaged = false
  }

  /// Creates a managed producer: runs `producer` at once with a function that sends into this
  /// producer.
  ///
  /// The function holds the producer weakly. The producer stays alive while it has at least one
  /// observer (Bond v4's managed lifecycle), so `center.bnd_notification(name).observe { }` works
  /// without holding it; when it is deallocated, the disposable that `producer` returned is disposed.
  public convenience init(replayLength: Int = 0, producer: (@escaping (Event) -> Void) -> (any DisposableType)?) {
    self.init(replayLength: replayLength, managedBy: { observer in producer(observer.event) })
  }

  /// A managed producer (as ``init(replayLength:producer:)``) whose closure can also end it: the
  /// observer it is given sends into this producer (`event`) and finishes it (`finished`), holding
  /// it weakly; with `relaysPressure` it carries this producer's pressure upstream (flow control).
  /// Used by ``EventProducerType/share(replayLength:)`` to relay its upstream's end and pressure.
  @usableFromInline
  init(
    replayLength: Int,
    relaysPressure: Bool = false,
    managedBy producer: (EventObserver<Event>) -> (any DisposableType)?
  ) {
    precondition(
      replayLength >= 0,
      "EventProducer(replayLength:producer:): replayLength must not be negative, got \(replayLength)"
    )
    self.replayLength = replayLength
    self.replay = ReplayBuffer(capacity: replayLength)
    self.recordsReplay = replayLength > 0
    self.isManaged = true
    // The sink carries this producer's pressure upstream: what puts it under pressure (a stage
    // downstream of `share`) puts the producers it observes under pressure too.
    let disposable = producer(
      EventObserver(
        { [weak self] event in self?.next(event) },
        finished: { [weak self] in self?.finish() },
        registered: nil,
        pressure: relaysPressure ? gate : nil
      )
    )
    withLifecycle { $0.producerDisposable = disposable }
  }

  deinit {
    // The observations still live end with the producer: each receives `finished` after its last
    // event and reports `isDisposed`; a later dispose() finds the flag set and does nothing. No
    // thread holds the delivery rights (a drainer holds the producer), and the pending queue is
    // empty (every push precedes its count, and the last drainer drained until the count was 0),
    // so the observers are all there is.
    let count = observersCount
    observersCount = 0
    for index in 0..<count {
      observerDraining(at: index).takeRetainedValue().end(countingIn: self, inDeinit: true)
    }
    firstObserver = nil
    otherObservers?.deallocate()
    // No storage: nothing was ever queued, managed or bound.
    if let storage = pendingStorage.load() {
      let (producerDisposable, disconnects) = LockedState(storage: storage).withLock { state in
        (state.lifecycle.producerDisposable, state.lifecycle.disconnectDisposables)
      }
      producerDisposable?.dispose()
      for disposable in disconnects { disposable.dispose() }
    }
    // Its `writability` observers end with it.
    flowGate.load()?.changes.load()?.finish()
  }

  /// The number of observations that are registered and not disposed.
  public var observerCount: Int {
    liveObservers.load(ordering: .relaxed)
  }

  /// Sends `event` to every observer (and into the replay buffer).
  ///
  /// Lock-free when no other thread is sending: one compare-exchange to take the delivery rights,
  /// one subtraction to give them back. Otherwise the event is queued and the thread holding the
  /// rights delivers it; a call from inside an observer is queued the same way.
  @inlinable
  public func next(_ event: Event) {
    submit(.event(event))
  }

  /// ``next(_:)`` for a caller that builds `event` for this call (``ObservableArray``'s hand-off):
  /// when the producer is idle the event goes to the observers as it is, without the copy into a
  /// work item that `next` makes (a retain and a release per reference the event holds).
  @inlinable @inline(__always)
  func next(owned event: __owned Event) {
    if !withRightsIfIdle({ deliverDraining(event) }) { submitContended(.event(consume event)) }
  }

  /// Ends the stream: every observer registered before it receives every event sent before it,
  /// then its `finished` closure, once; its observation is then disposed and its closures released.
  /// A later `next` reaches nobody and does not enter the replay; a later observer receives the
  /// replay, then `finished`, at once. Thread-safe; a second call is harmless; from inside an
  /// observer it is queued after the current event, like a `next`.
  public func finish() {
    // acquiringAndReleasing: one winner queues the end.
    guard !finishRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
    // A finished producer is writable: its waiting senders go on (and find it finished). The fence
    // pairs with the one in `gate` (a gate created meanwhile sees the flag).
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    flowGate.load()?.finish()
    submit(.finish)
  }

  /// Whether ``finish()`` has been called (its end may still be on its way to the observers).
  public var isFinished: Bool {
    finishRequested.load(ordering: .acquiring)
  }

  /// Registers `observer`: the replay, then every later event, then the end; `registered` right
  /// after the replay, before any later event.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    register(observer)
  }

  /// Returns a function that sends into this producer. It holds the producer weakly; the producer
  /// disposes `disconnectDisposable` when it is deallocated, which ends a binding into it.
  public func sink(_ disconnectDisposable: (any DisposableType)?) -> (Event) -> Void {
    if let disconnectDisposable { disposeOnDeinit(disconnectDisposable) }
    return { [weak self] event in self?.next(event) }
  }
}

extension EventProducer: @unchecked Sendable where Event: Sendable {}
