import Synchronization

// # The inbox's direct path
//
// An inbox (`Core/Inbox.swift`) is an `EventProducer` with one observer, the sink of a
// multi-source operator (`merge`, `combineLatest`, `zip`). Its upstreams used to send every event
// through `next`: the event wrapped as the sink's input (and, for the tuple operators, its value
// through a queue), the drainer's loop over the observers, the observer's closure, the sink's
// `switch` on the input. When the inbox is idle, none of that is needed: the upstream's thread can
// take the delivery rights exactly as `next` takes them (`withRightsIfIdle`: the same
// compare-exchange 0 → 1), call the sink itself, and give them back exactly as `next` gives them
// back (the subtraction, then what others queued meanwhile, at most `drainHandOffLimit` items, the
// rights then left vacant for the next sender or a worker). So the protocol of `EventProducer+Drain.swift` is unchanged: one holder of
// the rights at a time, and the direct call is one more kind of work the holder performs in place
// of a `.event` delivery to the single observer, with the same check first (the observation not
// disposed). When the inbox is not idle (another upstream's event is being delivered, or this is a
// reentrant send from inside a delivery) the upstream queues as before, through `next`.
//
// Why the direct call may touch the sink: the sink is reached through an unowned(unsafe) reference
// (no retain per event), and it is alive while the inbox's observer box is registered, which is the
// case while this thread holds the rights and has seen the observation not disposed: only a holder
// of the rights purges a disposed box (and the inbox is never finished, and its upstreams' closures
// hold it, so it is not deallocated meanwhile). Order: the rights are taken only when idle, when
// everything queued before has been performed, so a direct call never overtakes an earlier input.
// Verification/Drain.pml models `next`; the direct path is its `next` with the delivery replaced by
// another action of the holder, so the model's claims (one holder, no loss, one order, bounded work
// for others) carry over unchanged.

extension EventProducer {
  /// The inbox's direct path (see above): if this producer is idle, takes the delivery rights, calls
  /// `deliver` in place of a delivery to its single observer when that observer is registered and
  /// not disposed, and gives the rights back as ``next(_:)`` does. Returns `false`, doing nothing,
  /// when another thread (or this one, from inside a delivery) holds the rights.
  ///
  /// - Parameters:
  ///   - serialAccess: the inbox's debug check of the sink's serialized state, entered around
  ///     `deliver` as around the observer's closure.
  ///   - deliver: the call of the sink, in place of a delivery to the single observer.
  @inlinable @inline(__always)
  func deliverToSoleObserverIfIdle(_ serialAccess: SerialAccessCheck, _ deliver: () -> Void) -> Bool {
    withRightsIfIdle {
      if hasSoleLiveObserverDraining {
        serialAccess.enter()
        deliver()
        serialAccess.leave()
      }
    }
  }

  /// Whether exactly one observer is registered and its observation is not disposed (the holder of
  /// the delivery rights only).
  @inlinable
  var hasSoleLiveObserverDraining: Bool {
    checkRights()
    guard observersCount == 1, let firstObserver else { return false }
    // acquiring: as `deliverDraining`'s check, sees the flag of a disposal that happened before.
    return firstObserver._withUnsafeGuaranteedRef { !$0.observation.disposed.load(ordering: .acquiring) }
  }
}
