// What a scheduled delivery keeps under its lock: the pure machine, and beside it what the machine's
// decisions are about but a pure machine does not hold (the observer's closures, the upstream
// observation). Each drain step takes out, in the same critical section, the closure the machine's
// step hands over; the end and disposal take out all of them. The delivery calls or releases them
// after the lock.

/// The state of one ``ScheduledDelivery`` under its lock: its decisions
/// (``ScheduledDeliveryStateMachine``) and the observer's closures and the upstream observation,
/// which the machine's actions say when to hand to the drain (``nextBatch(_:mayContinue:arrays:)``,
/// ``nextEvent(mayContinue:chunk:chunkLimit:)``) or to let go (``release(_:)``). It calls none of
/// them: the caller does, after the lock.
@usableFromInline
struct ScheduledDeliveryLockedState<Event: Sendable> {
  @usableFromInline typealias Machine = ScheduledDeliveryStateMachine<Event>
  @usableFromInline typealias Observer = UncheckedSendable<(Event) -> Void>
  @usableFromInline typealias Registered = UncheckedSendable<() -> Void>
  @usableFromInline typealias Finished = UncheckedSendable<() -> Void>
  @usableFromInline typealias ArrayObserver = UncheckedSendable<([Event]) -> Void>

  // Field order: as the machine's (see there): the closures only some steps touch first, the
  // machine, then the observer, which every drain step hands over, next to the mutex.

  /// The `registered` callback, until the machine hands it to the drain.
  @usableFromInline var registered: Registered?
  /// The `finished` callback (`nil` when nobody asked), until the end or disposal.
  @usableFromInline var finished: Finished?
  /// The observer of arrays, in ``ScheduledDelivery``'s array mode (``Batches``); `nil` otherwise.
  @usableFromInline var arrayObserver: ArrayObserver?
  /// The upstream observation, disposed with this delivery.
  @usableFromInline var upstream: (any DisposableType)?
  /// The decisions.
  @usableFromInline var machine: Machine
  /// The observer of events (`nil` in array mode); `nil` once over.
  @usableFromInline var observer: Observer?

  @inlinable
  init(
    observer: Observer?,
    arrayObserver: ArrayObserver? = nil,
    registered: Registered?,
    finished: Finished?,
    machine: Machine
  ) {
    self.observer = observer
    self.arrayObserver = arrayObserver
    self.registered = registered
    self.finished = finished
    self.machine = machine
  }

  /// The upstream observation was made: kept, or handed back to dispose at once (already over).
  @inlinable
  mutating func attach(_ disposable: any DisposableType) -> (any DisposableType)? {
    switch machine.attached() {
    case .keep:
      upstream = disposable
      return nil
    case .disposeAtOnce:
      return disposable
    }
  }

  /// What the end or disposal lets go of, to dispose and release outside the lock.
  @usableFromInline
  struct Released {
    /// What the machine let go of: the waiting events, and whether the stage was under pressure.
    @usableFromInline var disposal: Machine.Disposal
    @usableFromInline var upstream: (any DisposableType)?
    @usableFromInline var observer: Observer?
    @usableFromInline var registered: Registered?
    /// Called by the drain that delivers the end (unless a `dispose()` wins); released otherwise.
    @usableFromInline var finished: Finished?
    @usableFromInline var arrayObserver: ArrayObserver?
  }

  /// Disposed: the machine forgets the waiting events; everything is taken out, to release (and the
  /// upstream to dispose) outside the lock.
  @usableFromInline
  mutating func disposed() -> Released {
    release(machine.disposed())
  }

  /// Takes out every closure and the upstream observation with `disposal` (the machine's end or
  /// disposal, in this critical section).
  @usableFromInline
  mutating func release(_ disposal: Machine.Disposal) -> Released {
    defer {
      upstream = nil
      observer = nil
      registered = nil
      finished = nil
      arrayObserver = nil
    }
    return Released(
      disposal: disposal,
      upstream: upstream,
      observer: observer,
      registered: registered,
      finished: finished,
      arrayObserver: arrayObserver
    )
  }
}

// MARK: - The drain's steps, with what they hand over

extension ScheduledDeliveryLockedState {
  /// How a drain ends (both modes): the machine's ``ScheduledDeliveryStateMachine/DrainExit``, the
  /// end with everything it lets go of.
  @usableFromInline
  enum DrainExit {
    case reschedule
    case stop
    case finish(Released)
  }

  /// The machine's exit, with what the end lets go of taken out.
  @inlinable
  mutating func exit(_ exit: Machine.DrainExit) -> DrainExit {
    switch exit {
    case .reschedule: return .reschedule
    case .stop: return .stop
    case .finish(let disposal): return .finish(release(disposal))
    }
  }

  /// The machine's ``ScheduledDeliveryStateMachine/BatchStep``, with the closures it hands over.
  @usableFromInline
  enum BatchStep {
    /// Deliver `batch` to the observer; call `registered.callback` before the event at offset
    /// `registered.offset` (or after the last one, when the offset is the batch's count).
    case deliver(Observer, registered: (offset: Int, callback: Registered)?)
    /// Array mode: the same, to the observer of arrays.
    case deliverArrays(ArrayObserver, registered: (offset: Int, callback: Registered)?)
    case exit(DrainExit)
  }

  /// Unbounded mode: ``ScheduledDeliveryStateMachine/nextBatch(_:mayContinue:)``; the observer (of
  /// arrays, with `arrays`) and a due `registered` are taken out with the step.
  @inlinable
  mutating func nextBatch(_ batch: inout WorkQueue<Event>, mayContinue: Bool, arrays: Bool) -> BatchStep {
    switch machine.nextBatch(&batch, mayContinue: mayContinue) {
    case .exit(let exit):
      return .exit(self.exit(exit))
    case .deliver(let registeredAt):
      // The machine hands a callback over only while one is pending, and delivers only until it
      // is over: neither closure is `nil` here.
      let registered = registeredAt.map { ($0, self.registered.take().unsafelyUnwrapped) }
      if arrays { return .deliverArrays(arrayObserver.unsafelyUnwrapped, registered: registered) }
      return .deliver(observer.unsafelyUnwrapped, registered: registered)
    }
  }

  /// The machine's ``ScheduledDeliveryStateMachine/SingleStep``, with the closure it hands over.
  @usableFromInline
  enum SingleStep {
    case deliver(Observer, Event, releases: Bool)
    case deliverArray(ArrayObserver, [Event], releases: Bool)
    case deliverChunk(Observer, releases: Bool)
    case registered(Registered)
    case exit(DrainExit)
  }

  /// Bounded mode: ``ScheduledDeliveryStateMachine/nextEvent(mayContinue:chunk:chunkLimit:)``; the
  /// closure the step calls is taken out with it.
  @inlinable
  mutating func nextEvent(mayContinue: Bool, chunk: inout WorkQueue<Event>, chunkLimit: Int) -> SingleStep {
    // As in `nextBatch`: a step that delivers or calls `registered` finds its closure.
    switch machine.nextEvent(mayContinue: mayContinue, chunk: &chunk, chunkLimit: chunkLimit) {
    case .deliver(let event, let releases):
      return .deliver(observer.unsafelyUnwrapped, event, releases: releases)
    case .deliverChunk(let releases):
      return .deliverChunk(observer.unsafelyUnwrapped, releases: releases)
    case .deliverArray(let array, let releases):
      return .deliverArray(arrayObserver.unsafelyUnwrapped, array, releases: releases)
    case .registered:
      return .registered(registered.take().unsafelyUnwrapped)
    case .exit(let exit):
      return .exit(self.exit(exit))
    }
  }
}
