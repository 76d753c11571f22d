import Synchronization

// The list of observers, drainer-owned state (see `EventProducer+Drain.swift`): the first in
// `firstObserver`, so that a producer with one observer (the common case: an operator's upstream,
// an inbox, a `switchToLatest` inner) allocates no buffer for it, the others in `otherObservers`.

extension EventProducer {
  /// The observer at `index` in registration order (`index < observersCount`): `firstObserver`,
  /// then `otherObservers`. Drainer-owned state (or `deinit`'s, when no thread holds the rights).
  @inlinable @inline(__always)
  func observerDraining(at index: Int) -> Unmanaged<ObserverBox<Event>> {
    index == 0 ? firstObserver.unsafelyUnwrapped : otherObservers.unsafelyUnwrapped[index &- 1]
  }

  /// Stores `box` at `index` in registration order (`index <= observersCount`, the buffer grown).
  @inlinable @inline(__always)
  func setObserverDraining(_ box: Unmanaged<ObserverBox<Event>>, at index: Int) {
    if index == 0 {
      firstObserver = box
    } else {
      otherObservers.unsafelyUnwrapped[index &- 1] = box
    }
  }

  /// Grows `otherObservers` (the observers after the first).
  @inlinable
  func growObserversDraining() {
    let capacity = Swift.max(4, observersCapacity * 2)
    let grown = UnsafeMutablePointer<Unmanaged<ObserverBox<Event>>>.allocate(capacity: capacity)
    if let otherObservers {
      grown.moveInitialize(from: otherObservers, count: observersCount &- 1)
      otherObservers.deallocate()
    }
    otherObservers = grown
    observersCapacity = capacity
  }

  /// Removes and releases disposed observers.
  @inlinable
  func purgeDraining() {
    checkRights()
    // acquiringAndReleasing: a disposer sets its observation's flag before it raises this one, so
    // every flag raised before the request this exchange takes is seen by the loads below. A
    // request raised after it is still queued as `.purge` (or finds the producer idle).
    _ = purgeRequested.exchange(false, ordering: .acquiringAndReleasing)
    // Compacts in place and releases as it goes, with no temporary array. A closure's deinit may
    // run user code, but whatever it sends, observes or disposes is queued (this thread holds the
    // rights), nothing but the drainer reads the buffer, and the producer itself stays alive:
    // the caller holds it (a sender, or a disposer through the observation's weak reference).
    let count = observersCount
    var kept = 0
    for index in 0..<count {
      let box = observerDraining(at: index)
      if box._withUnsafeGuaranteedRef({ $0.observation.disposed.load(ordering: .acquiring) }) {
        box.release()
      } else {
        setObserverDraining(box, at: kept)
        kept += 1
      }
    }
    observersCount = kept
    if kept == 0 { firstObserver = nil }
  }
}
