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

  /// Adds the events a drain delivered to `deliveredCount`: one relaxed add per drain, when it
  /// stops (before it delivers the end, if it does).
  @inlinable
  func reportDelivered(_ count: Int) {
    if count > 0 { statistics?.recordDelivered(count) }
  }

  /// Records the latency of `sample`, whose event the drain is about to hand over.
  @usableFromInline
  func recordLatency(_ sample: LatencySample) {
    guard let statistics, let sampler else { return }
    statistics.recordLatency(seconds: sampler.clock() - sample.start)
  }

  @inlinable
  func drainBatches() {
    var batch = WorkQueue<Event>()
    var delivered = 0
    // Every way out reports the events delivered (the end reports them before it is delivered).
    defer { reportDelivered(delivered) }
    let sampling = sampler != nil
    while true {
      if pausesForDownstream() { return }
      var sample: LatencySample?
      let step = state.withLock {
        let step = $0.nextBatch(&batch, mayContinue: delivered < Self.drainShare, arrays: maxArrayCount > 0)
        if sampling { sample = $0.machine.takeSample() }
        return step
      }
      // The observer and `registered` are called here, outside the lock: they are user code and
      // may send more events into this delivery (which queue behind this batch).
      switch step {
      case .exit(let exit):
        reportDelivered(delivered)
        delivered = 0
        return leave(exit)
      case .deliverArrays(let observer, let registered):
        statistics?.recordBuffered(-batch.count)
        guard deliverArrays(&batch, to: observer, registered: registered, sample: sample, delivered: &delivered) else {
          return
        }
      case .deliver(let observer, let registered):
        statistics?.recordBuffered(-batch.count)
        var offset = 0
        // Off: -1, never an offset.
        let sampleOffset = sample?.offset ?? -1
        while let event = batch.pop() {
          if let registered, registered.offset == offset {
            guard !isDisposed else {
              delivered += offset
              return
            }
            registered.callback.value()
          }
          guard !isDisposed else {
            delivered += offset
            return
          }
          if offset == sampleOffset, let sample { recordLatency(sample) }
          observer.value(event)
          offset += 1
        }
        delivered += offset
        if let registered, registered.offset == offset {
          guard !isDisposed else { return }
          registered.callback.value()
        }
      }
    }
  }

  /// Array mode: hands `batch` (one burst) to `observer` in arrays of at most
  /// ``maxArrayCount`` events, each allocated once at its exact size, and `registered` at its
  /// offset; adds the events it hands over to `delivered`, and times `sample` before the array
  /// that holds it. Returns `false` when the delivery stopped (disposed) meanwhile.
  @usableFromInline
  func deliverArrays(
    _ batch: inout WorkQueue<Event>,
    to observer: Locked.ArrayObserver,
    registered: (offset: Int, callback: Locked.Registered)?,
    sample: LatencySample?,
    delivered: inout Int
  ) -> Bool {
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
      guard !isDisposed else { return false }
      if let sample, sample.offset >= offset, sample.offset < offset + array.count { recordLatency(sample) }
      offset += array.count
      observer.value(array)
      delivered += array.count
    }
    return true
  }

  @inlinable
  func drainOneByOne() {
    var delivered = 0
    // Every way out reports the events delivered (the end reports them before it is delivered).
    defer { reportDelivered(delivered) }
    // A `.backpressure` stage with nobody downstream to pause for takes up to 32 events per lock.
    var chunk = WorkQueue<Event>()
    let chunkLimit = downstreamGate == nil ? 32 : 1
    let sampling = sampler != nil
    while true {
      if pausesForDownstream() { return }
      var sample: LatencySample?
      let step = state.withLock {
        let step = $0.nextEvent(mayContinue: delivered < Self.drainShare, chunk: &chunk, chunkLimit: chunkLimit)
        if sampling { sample = $0.machine.takeSample() }
        return step
      }
      // Called outside the lock (user code), see drainBatches().
      switch step {
      case .exit(let exit):
        reportDelivered(delivered)
        delivered = 0
        return leave(exit)
      case .registered(let callback):
        guard !isDisposed else { return }
        callback.value()
      case .deliver(let observer, let event, let releases):
        statistics?.recordBuffered(-1)
        // The release first: a sender waiting on it goes on while this event is delivered.
        if releases { upstreamGate?.release() }
        guard !isDisposed else { return }
        if let sample { recordLatency(sample) }
        observer.value(event)
        delivered += 1
      case .deliverChunk(let observer, let releases):
        if releases { upstreamGate?.release() }
        // A timed event in the chunk (at most 32 events) is timed as the drain starts on the chunk:
        // no check per event.
        if let sample { recordLatency(sample) }
        while let event = chunk.pop() {
          guard !isDisposed else {
            // Disposed meanwhile: the rest of the chunk is let go, and leaves `bufferedCount`.
            statistics?.recordBuffered(-(chunk.count + 1))
            return
          }
          // An event in hand still counts as waiting until it is handed over.
          statistics?.recordBuffered(-1)
          observer.value(event)
          delivered += 1
        }
      case .deliverArray(let observer, let array, let releases):
        statistics?.recordBuffered(-array.count)
        if releases { upstreamGate?.release() }
        guard !isDisposed else { return }
        if let sample { recordLatency(sample) }
        observer.value(array)
        delivered += array.count
      }
    }
  }

  /// Ends a drain: nothing more, a new drain scheduled, or the end delivered.
  @inlinable
  func leave(_ exit: Locked.DrainExit) {
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
  func deliverEnd(_ released: Locked.Released) {
    // acquiringAndReleasing: exactly one of this and a racing dispose() wins the flag.
    let isEnd = !disposedFlag.exchange(true, ordering: .acquiringAndReleasing)
    released.upstream?.dispose()
    settle(released)
    if isEnd, let finished = released.finished?.value { finished() }
  }
}
