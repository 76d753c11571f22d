import Synchronization

/// The disposable of a ``SectionedChanges`` observation: ends the delivery to the observer first,
/// then the observations of the outer and inner arrays.
/// - Note: thread-safe; disposing twice is harmless.
@usableFromInline
final class SectionedChangesObservation<Row>: DisposableType, @unchecked Sendable {
  // @unchecked: `sink` is only used to dispose the inner observations (behind its lock); the
  // other members are immutable references to thread-safe disposables.
  @usableFromInline let disposed = Atomic<Bool>(false)
  @usableFromInline let sink: SectionedChangesSink<Row>
  @usableFromInline let delivery: any DisposableType
  @usableFromInline let outer: any DisposableType

  @usableFromInline
  init(sink: SectionedChangesSink<Row>, delivery: any DisposableType, outer: any DisposableType) {
    self.sink = sink
    self.delivery = delivery
    self.outer = outer
  }

  @usableFromInline
  var isDisposed: Bool { disposed.load(ordering: .acquiring) }

  @usableFromInline
  func dispose() {
    guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
    delivery.dispose()  // after this, no delivery to the observer starts
    outer.dispose()
    sink.disposeInners()
  }
}
