import Synchronization

/// The disposable that ``EventProducer/observe(_:)`` returns.
///
/// It holds the producer weakly (an observation does not keep a plain producer alive) and only
/// a flag of its own: the observer's closure lives in the producer's ``ObserverBox``, so a
/// deallocated producer releases it even while the user still holds this disposable.
@usableFromInline
final class Observation<Event>: DisposableType, @unchecked Sendable {
  // @unchecked: `disposed` is atomic and `producer` is an immutable weak reference.

  /// Set once by the first `dispose()`; the drainer reads it before every delivery.
  @usableFromInline let disposed = Atomic<Bool>(false)
  @usableFromInline weak let producer: EventProducer<Event>?

  @inlinable
  init(producer: EventProducer<Event>) {
    self.producer = producer
  }

  @usableFromInline
  var isDisposed: Bool { disposed.load(ordering: .acquiring) }

  @usableFromInline
  func dispose() {
    // acquiringAndReleasing: the winner publishes the flag before it asks the producer to purge.
    guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
    producer?.observationDisposed()
  }
}

/// One registered observer as the producer's drainer sees it: the closure and its flag.
/// Owned by the producer (released when purged after `dispose()`, or with the producer).
@usableFromInline
final class ObserverBox<Event> {
  @usableFromInline let handler: (Event) -> Void
  @usableFromInline let observation: Observation<Event>
  /// Called once, right after the replay; then dropped. Drainer-owned.
  @usableFromInline var registered: (() -> Void)?
  /// Called once at the end of the stream, unless disposed first. Drainer-owned.
  @usableFromInline var finished: (() -> Void)?
  /// Flow control: the gate of the stage this observation feeds, and the producer's own gate it
  /// puts under pressure (the link lives as long as this box: see `deinit`).
  @usableFromInline let pressureLink: (stage: FlowGate, producer: FlowGate)?

  @inlinable
  init(observer: EventObserver<Event>, observation: Observation<Event>, producerGate: FlowGate?) {
    self.handler = observer.event
    self.observation = observation
    self.registered = observer.registered
    self.finished = observer.finished
    if let stage = observer.pressure, let producerGate {
      pressureLink = (stage, producerGate)
      stage.addDependent(producerGate)
    } else {
      pressureLink = nil
    }
  }

  deinit {
    // The observation is over (purged after dispose(), ended, or the producer is gone): the stage
    // no longer puts this producer under pressure.
    if let pressureLink { pressureLink.stage.removeDependent(pressureLink.producer) }
  }

  /// The stream ended (or the producer is being deallocated, `inDeinit`): unless the observation
  /// was disposed first, marks it disposed, uncounts it and calls `finished`. Called by the drainer
  /// (or by `deinit`, when no thread can hold the rights), so never concurrently with a delivery.
  @inlinable
  func end(countingIn producer: EventProducer<Event>, inDeinit: Bool = false) {
    // acquiringAndReleasing: exactly one of this and a racing dispose() wins the flag.
    guard !observation.disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
    producer.liveObservers.subtract(1, ordering: .relaxed)
    liveObservations.subtract(1, ordering: .relaxed)
    if producer.isManaged && !inDeinit { producer.releaseWhenUnobserved() }
    let finished = self.finished
    self.finished = nil
    finished?()
  }
}
