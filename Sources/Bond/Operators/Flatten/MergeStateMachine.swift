/// What reaches a `merge` observation's private serializer: an inner producer to observe, an
/// event of an inner producer, the end of a registration, the end of an inner producer, or the end
/// of the outer producer.
@usableFromInline
enum MergeInput<Inner, Event> {
  case inner(Inner)
  case event(Event)
  case registered
  case innerEnded
  case outerEnded
}

/// The state of one `merge` observation: the inner producers it keeps alive, the registrations it
/// waits for before forwarding `registered`, and what must end before the observation ends.
///
/// A pure value, owned by the single observer of the observation's serializer (never called
/// concurrently), so it needs no lock and can be tested with no threads.
@usableFromInline
struct MergeStateMachine<Inner> {
  /// The inner producers received, kept alive while the outer producer lives.
  @usableFromInline var retained: [Inner] = []
  /// Whether inner producers received are kept alive (false once the outer has ended, and for
  /// `merge(_:)` of an array, whose producers the operator value holds).
  @usableFromInline var retainsInners: Bool
  /// Registrations not finished yet (the outer's, or each producer's of an array).
  @usableFromInline var unregistered: Int
  /// Inner producers observed that have not ended.
  @usableFromInline var liveInners = 0
  /// Whether the outer producer has ended (for an array: whether every producer has arrived).
  @usableFromInline var outerHasEnded = false
  /// At most this many inners observed at once (`merge(maxConcurrent:)`; `Int.max` otherwise).
  @usableFromInline let maxConcurrent: Int
  /// Inners waiting their turn, in the order they arrived (kept alive until observed).
  @usableFromInline var waiting = WorkQueue<Inner>()

  @inlinable
  init(registrations: Int, retainsInners: Bool, maxConcurrent: Int = .max) {
    unregistered = registrations
    self.retainsInners = retainsInners
    self.maxConcurrent = maxConcurrent
  }

  /// An inner producer arrived.
  /// - Returns: the inner to observe now (the caller observes it and stores the observation), or
  ///   `nil` when `maxConcurrent` are observed: it waits its turn.
  @inlinable
  mutating func innerReceived(_ inner: Inner) -> Inner? {
    if retainsInners { retained.append(inner) }
    guard liveInners < maxConcurrent else {
      waiting.push(inner)
      return nil
    }
    liveInners += 1
    return inner
  }

  /// A registration finished.
  /// - Returns: true when it was the last one: the observation's `registered` is due now.
  @inlinable
  mutating func registrationFinished() -> Bool {
    unregistered -= 1
    return unregistered == 0
  }

  /// An inner producer ended.
  /// - Returns: the waiting inner whose turn it is now (to observe), and whether the observation
  ///   ends now (the outer and every inner have ended).
  @inlinable
  mutating func innerEnded() -> (next: Inner?, ends: Bool) {
    if let next = waiting.pop() { return (next, false) }
    liveInners -= 1
    return (nil, outerHasEnded && liveInners == 0)
  }

  /// The outer producer ended (or released its observer): stop keeping the inner producers alive.
  /// - Returns: the inner producers to release (their observations go on), and whether the
  ///   observation ends now (every inner received has ended, or none was).
  @inlinable
  mutating func outerEnded() -> (released: [Inner], ends: Bool) {
    retainsInners = false
    outerHasEnded = true
    defer { retained = [] }
    return (retained, liveInners == 0 && waiting.isEmpty)
  }
}
