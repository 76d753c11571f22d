/// What `observe` returns for a stage that other parties keep alive while it works (the upstream's
/// observation, a scheduler's thread, worker tasks): it references the stage weakly, so that the
/// stage, with the observer's closures and whatever it holds, goes as soon as those parties let it
/// go after a `dispose()` or the end, however long the user keeps the disposable (guarantee 6).
/// Used by `deliverOn`'s polled ring and by `map(maxConcurrent:)`, `mapUnordered` and `tryMap`.
/// - Note: thread-safe.
@usableFromInline
final class StageHandle<Stage: DisposableType>: DisposableType, @unchecked Sendable {
  // @unchecked: `stage` is written only by init; the runtime loads a weak reference atomically.
  @usableFromInline weak var stage: Stage?

  @inlinable
  init(_ stage: Stage) {
    self.stage = stage
  }

  /// Disposed, or over; also once the stage is gone (nothing keeps it working any more).
  @inlinable
  var isDisposed: Bool { stage?.isDisposed ?? true }

  @inlinable
  func dispose() {
    stage?.dispose()
  }
}
