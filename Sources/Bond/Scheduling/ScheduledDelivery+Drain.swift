import Synchronization

// The drain of a scheduled delivery: runs on the scheduler, one at a time, taking a burst of events
// per lock (or one event in the bounded mode) and calling the observer outside the lock.

extension ScheduledDelivery {
  @inlinable
  func scheduleDrain() {
    // Called after the lock is released: a scheduler may run the action at once (or take a lock).
    scheduler.schedule { [self] in self.drain() }
  }

  /// Runs on the scheduler. Only one drain runs at a time (see ``ScheduledDeliveryStateMachine``).
  @inlinable
  func drain() {
    if isBounded { drainOneByOne() } else { drainBatches() }
  }

  /// Whether the drain must pause because what it delivers to is under pressure: it then asks the
  /// downstream gate to schedule a new drain on release and returns `true`; `false` when the gate
  /// is not (or no longer) under pressure. The drain stays "running" meanwhile (`isDraining`), so
  /// senders only queue: the buffer fills, and a `.backpressure` stage raises its own gate.
  @inlinable
  func pausesForDownstream() -> Bool {
    guard let downstreamGate, downstreamGate.isPressured else { return false }
    return downstreamGate.wakeOnRelease { [self] in self.scheduleDrain() }
  }

  @inlinable
  func drainBatches() {
    var batch = WorkQueue<Event>()
    var delivered = 0
    while true {
      if pausesForDownstream() { return }
      let step = state.withLock { $0.nextBatch(&batch, mayContinue: delivered < Self.drainShare) }
      // The observer and `registered` are called here, outside the lock: they are user code and
      // may send more events into this delivery (which queue behind this batch).
      switch step {
      case .exit(let exit):
        return leave(exit)
      case .deliver(let observer, let registered):
        statistics?.recordBuffered(-batch.count)
        if maxArrayCount > 0 {
          let count = batch.count
          guard deliverArrays(&batch, registered: registered) else { return }
          delivered += count
          continue
        }
        var offset = 0
        while let event = batch.pop() {
          if let registered, registered.offset == offset {
            guard !isDisposed else { return }
            registered.callback.value()
          }
          guard !isDisposed else { return }
          observer.value(event)
          offset += 1
        }
        if let registered, registered.offset == offset {
          guard !isDisposed else { return }
          registered.callback.value()
        }
        delivered += offset
      }
    }
  }

  /// Array mode: hands `batch` (one burst) to the array observer in arrays of at most
  /// ``maxArrayCount`` events, each allocated once at its exact size, and `registered` at its
  /// offset. Returns `false` when the delivery stopped (disposed) meanwhile.
  @usableFromInline
  func deliverArrays(
    _ batch: inout WorkQueue<Event>,
    registered: (offset: Int, callback: Machine.Registered)?
  ) -> Bool {
    guard let observer = state.withLock({ $0.arrayObserver }) else { return false }
    var offset = 0
    var registered = registered
    while !batch.isEmpty || registered != nil {
      if let pending = registered, pending.offset == offset || batch.isEmpty {
        registered = nil
        guard !isDisposed else { return false }
        pending.callback.value()
        continue
      }
      // An array never spans the registration point: `registered` comes between two arrays.
      let limit = Swift.min(maxArrayCount, batch.count, (registered?.offset ?? .max) - offset)
      var array: [Event] = []
      array.reserveCapacity(limit)
      while array.count < limit, let event = batch.pop() { array.append(event) }
      offset += array.count
      guard !isDisposed else { return false }
      observer.value(array)
    }
    return true
  }

  @inlinable
  func drainOneByOne() {
    var delivered = 0
    while true {
      if pausesForDownstream() { return }
      let step = state.withLock { $0.nextEvent(mayContinue: delivered < Self.drainShare) }
      // Called outside the lock (user code), see drainBatches().
      switch step {
      case .exit(let exit):
        return leave(exit)
      case .registered(let callback):
        guard !isDisposed else { return }
        callback.value()
      case .deliver(let observer, let event, let releases):
        statistics?.recordBuffered(-1)
        // The release first: a sender waiting on it goes on while this event is delivered.
        if releases { upstreamGate?.release() }
        guard !isDisposed else { return }
        observer.value(event)
        delivered += 1
      case .deliverArray(let observer, let array, let releases):
        statistics?.recordBuffered(-array.count)
        if releases { upstreamGate?.release() }
        guard !isDisposed else { return }
        delivered += array.count
        observer.value(array)
      }
    }
  }

  /// Ends a drain: nothing more, a new drain scheduled, or the end delivered.
  @inlinable
  func leave(_ exit: Machine.DrainExit) {
    switch exit {
    case .stop: break
    case .reschedule: scheduleDrain()
    case .finish(let released): deliverEnd(released)
    }
  }

  /// Runs on the scheduler, after the last event: the delivery is over. It reports `isDisposed`
  /// from now on; `finished` is called unless a racing `dispose()` took the flag first (a disposed
  /// observation receives no end). What `released` holds is released here, outside the lock.
  @usableFromInline
  func deliverEnd(_ released: Machine.Released) {
    // acquiringAndReleasing: exactly one of this and a racing dispose() wins the flag.
    let isEnd = !disposedFlag.exchange(true, ordering: .acquiringAndReleasing)
    released.upstream?.dispose()
    settle(released)
    if isEnd, let finished = released.finished?.value { finished() }
  }
}
