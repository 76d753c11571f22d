/// What the outer producer's observer of a `merge`, `switchToLatest` or `flatMap` observation
/// captures: the observation's serializer. When the outer producer releases its observer (the
/// outer was deallocated, or the observation disposed), `deinit` tells the observation, which then
/// stops keeping the inner producers alive: the observation lives on while an inner can still
/// send, and no reference cycle outlives the outer.
@usableFromInline
final class OuterReleaseNotifier<Input> {
  @usableFromInline let serializer: EventProducer<Input>
  @usableFromInline let ended: Input

  @inlinable
  init(serializer: EventProducer<Input>, ended: Input) {
    self.serializer = serializer
    self.ended = ended
  }

  deinit {
    // Queued behind whatever the serializer is delivering (never recursing into it); ignored when
    // the observation was disposed first.
    serializer.next(ended)
  }
}
