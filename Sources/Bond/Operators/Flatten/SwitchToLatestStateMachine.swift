/// What reaches a `switchToLatest` observation's private serializer: an inner producer to switch
/// to, an event or the end of an inner producer tagged with the generation of its observation, the
/// end of the outer's registration, or the end of the outer producer.
@usableFromInline
enum SwitchToLatestInput<Inner, Event> {
  case inner(Inner)
  case event(Event, generation: Int)
  case registered
  case innerEnded(generation: Int)
  case outerEnded
}

/// The state of one `switchToLatest` observation: which inner observation is the current one.
///
/// Each inner producer received starts a new generation; an inner's events carry the generation of
/// the observation that received them, and only those of the current generation are forwarded. The
/// serializer delivers everything in one order, so once a newer inner has arrived, an event of an
/// older one (even one sent concurrently with the switch, or already queued) is dropped.
///
/// A pure value, owned by the single observer of the observation's serializer (never called
/// concurrently), so it needs no lock and can be tested with no threads.
@usableFromInline
struct SwitchToLatestStateMachine<Inner> {
  /// The generation of the current inner observation (0: none yet).
  @usableFromInline var generation = 0
  /// The current inner producer, kept alive while the outer producer lives.
  @usableFromInline var current: Inner?
  /// False once the outer producer has ended: inners are no longer kept alive.
  @usableFromInline var retainsInners = true
  /// Whether the current inner has ended (true while there is none).
  @usableFromInline var currentHasEnded = true

  @inlinable
  init() {}

  /// A newer inner producer arrived: the caller observes it with the returned generation (and
  /// disposes the previous observation).
  /// - Returns: the new generation, and the previous inner producer to release.
  @inlinable
  mutating func innerReceived(_ inner: Inner) -> (generation: Int, released: Inner?) {
    generation += 1
    currentHasEnded = false
    let released = current
    current = retainsInners ? inner : nil
    return (generation, released)
  }

  /// Whether an event of the inner observation of `generation` is forwarded.
  @inlinable
  func shouldForward(generation: Int) -> Bool {
    generation == self.generation
  }

  /// The inner observation of `generation` ended; an older inner's end changes nothing.
  /// - Returns: true when the observation ends now (the outer has ended and this is the latest inner).
  @inlinable
  mutating func innerEnded(generation: Int) -> Bool {
    guard generation == self.generation else { return false }
    currentHasEnded = true
    return !retainsInners
  }

  /// The outer producer ended (or released its observer): stop keeping the current inner alive.
  /// - Returns: the inner producer to release (its observation goes on), and whether the
  ///   observation ends now (the latest inner has ended, or there was none).
  @inlinable
  mutating func outerEnded() -> (released: Inner?, ends: Bool) {
    retainsInners = false
    defer { current = nil }
    return (current, currentHasEnded)
  }
}
