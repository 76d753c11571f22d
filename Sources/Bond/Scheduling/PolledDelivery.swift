/// What the upstream hands a ``PolledDelivery``: an event, the end of its registration, its end.
@usableFromInline
enum PolledItem<Event> {
  case event(Event)
  case registered
  case end
}

/// `deliverOn` on a ``DedicatedThreadScheduler`` (unbounded, without statistics, with no flow
/// control downstream): the upstream's events go into a ring that the scheduler's thread polls,
/// with no lock and no job per event (see ``DedicatedThreadPoller``). The same guarantees as
/// ``ScheduledDelivery``: in order, none lost, one at a time on the scheduler's thread, the replay
/// and `registered` there too, the end after every event, nothing new once disposed.
///
/// At most ``DedicatedThreadPoller/pollShare`` items per poll, so that the thread's other stages and
/// actions get their turn; the thread polls every stage before it runs the actions scheduled since
/// its last look, so an action scheduled after an event was sent runs after that event is
/// delivered, as with a drain, unless a burst of more than a share is waiting.
/// - Note: thread-safe.
@usableFromInline
final class PolledDelivery<Event: Sendable>: DedicatedThreadPoller, DisposableType {
  @usableFromInline typealias Item = PolledItem<Event>

  // The token holder's (see ``DedicatedThreadPoller``): released when the stage stops.
  @usableFromInline var observer: (Event) -> Void
  @usableFromInline var registered: (() -> Void)?
  @usableFromInline var finished: (() -> Void)?
  /// The upstream observation, disposed with this stage.
  @usableFromInline let upstream = SerialDisposable()
  /// Keeps the scheduler (and so its thread) alive while the stage is.
  @usableFromInline let scheduler: DedicatedThreadScheduler

  @inlinable
  init(scheduler: DedicatedThreadScheduler, observer: EventObserver<Event>) {
    self.scheduler = scheduler
    self.observer = observer.event
    self.registered = observer.registered
    self.finished = observer.finished
    let layout = Self.slotLayout()
    super.init(
      scheduler: scheduler,
      slotStride: layout.stride,
      payloadOffset: layout.payloadOffset,
      alignment: layout.alignment,
      pollFunction: { unsafeDowncast($0, to: PolledDelivery<Event>.self).poll() }
    )
  }

  /// A slot: the sequence number (8 bytes), then the item; a slot of 64 bytes or less takes a power
  /// of two, so that none straddles two cache lines.
  @inlinable
  static func slotLayout() -> (stride: Int, payloadOffset: Int, alignment: Int) {
    let alignment = max(MemoryLayout<Item>.alignment, MemoryLayout<Int>.alignment)
    let payloadOffset = max(MemoryLayout<Int>.size, alignment)
    var stride = (payloadOffset + MemoryLayout<Item>.size + alignment - 1) / alignment * alignment
    if stride <= 64 {
      var power = 8
      while power < stride { power <<= 1 }
      stride = power
    }
    return (stride, payloadOffset, alignment)
  }

  /// Registers with the thread, then observes `upstream` (whose replay and registration end go into
  /// the ring like its events).
  @inlinable
  func connect<Upstream: EventProducerType>(to upstream: Upstream, forwardRegistered: Bool)
  where Upstream.Event == Event {
    register()
    let observation = upstream.observe(
      with: EventObserver(
        { self.push(.event($0)) },
        finished: { self.push(.end) },
        registered: forwardRegistered ? { self.push(.registered) } : nil
      )
    )
    self.upstream.otherDisposable = observation
  }

  /// The upstream's serialized call: writes `item` into the ring and publishes it.
  @inlinable
  func push(_ item: Item) {
    let slot = tailSlot()
    (slot + payloadOffset).bindMemory(to: Item.self, capacity: 1).initialize(to: item)
    publish(slot)
  }

  /// The thread's poll: at most a share of items, stopping at once when disposed.
  @inlinable
  func poll() -> PollOutcome {
    guard beginPoll() else { return .finished }
    var delivered = 0
    while delivered < Self.pollShare, !isStopped,
      let slot = readySlot()
    {
      let item = (slot + payloadOffset).assumingMemoryBound(to: Item.self).move()
      taken()
      delivered += 1
      switch item {
      case .event(let event):
        observer(event)
      case .registered:
        let callback = registered
        registered = nil
        callback?()
      case .end:
        let callback = finished
        _ = stop()  // the thread holds the token: it releases below
        callback?()
      }
    }
    if endPoll() { return delivered > 0 ? .worked : .idle }
    releaseConsumerSide()
    upstream.dispose()
    return .finished
  }

  /// Releases the observer, the callbacks and the items waiting (the token holder, once stopped).
  @usableFromInline
  func releaseConsumerSide() {
    observer = { _ in }
    registered = nil
    finished = nil
    releaseWaitingItems()
    // releasing: `deinit`, on whichever thread drops the last reference, sees the consumer's side
    // as this release left it (its acquiring load of the token). `stopBit` is already set.
    token.bitwiseOr(Self.stopBit, ordering: .releasing)
  }

  /// Releases the items published and not taken (the token holder, or `deinit`). Trivial items
  /// (an `Int` event) need no release: the segments go with the stage, and a `dispose()` under a
  /// flood does no work per waiting event.
  @usableFromInline
  func releaseWaitingItems() {
    guard !_isPOD(Item.self) else { return }
    while let slot = readySlot() {
      (slot + payloadOffset).assumingMemoryBound(to: Item.self).deinitialize(count: 1)
      taken()
    }
  }

  /// Disposed, or over (its end was delivered).
  @inlinable
  var isDisposed: Bool { isStopped }

  @usableFromInline
  func dispose() {
    if stop() { releaseConsumerSide() }
    upstream.dispose()
    // A parked thread learns of it now and lets the stage (and so the scheduler) go.
    if wakesParkedThread { wakeThreadIfParked() }
  }

  deinit {
    // acquiring: the consumer's side as its last holder left it.
    _ = token.load(ordering: .acquiring)
    // Items published after the last release (a send that raced a dispose()).
    releaseWaitingItems()
  }
}
