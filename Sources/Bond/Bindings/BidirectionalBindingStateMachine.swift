/// The decisions of a two-way binding (``EventProducerType/bidirectionalBindTo(_:)-2k9ah``): whether a
/// value received from one side goes to the other. A pure value: the binding keeps it in a
/// `LockedState`, calls one method per event under the lock, and feeds the value into the other
/// side after unlocking when the answer is ``Action/forward``.
///
/// Two ways to stop echoes (the value the binding fed into a side coming back from it):
/// - `Equatable` values (`isEqual` set): a value equal to the last one the binding delivered to or
///   received from a side is not forwarded, in either direction. This also settles cycles of
///   bindings (a ↔ b ↔ c ↔ a): a value goes round at most once.
/// - Other values: while the binding feeds a side on a thread, the first event that side delivers
///   to the binding on that same thread is the echo (a producer that is idle delivers a `next` at
///   once, before anything else) and is dropped. An echo delivered later (the side was busy on
///   another thread) goes back once and then stops the same way; cycles of non-`Equatable`
///   bindings do not settle.
@usableFromInline
struct BidirectionalBindingStateMachine<Value> {
  /// A side of the binding.
  @usableFromInline
  enum Side {
    /// The producer `bidirectionalBindTo` is called on.
    case receiver
    /// Its argument.
    case other
  }

  /// What the caller does with the value after unlocking.
  @usableFromInline
  enum Action {
    /// Feed it into the opposite side (then call ``forwardFinished(to:)`` for non-`Equatable` values).
    case forward
    /// Nothing: it is an echo, or the opposite side already has it.
    case drop
  }

  /// Equality for `Equatable` values; `nil` otherwise.
  @usableFromInline let isEqual: ((Value, Value) -> Bool)?
  /// The last value delivered to or received from each side (`Equatable` values only).
  @usableFromInline var lastOfReceiver: Value?
  @usableFromInline var lastOfOther: Value?
  /// The thread feeding each side right now, waiting for its echo; 0 when none (non-`Equatable` only).
  @usableFromInline var feedingReceiver: UInt = 0
  @usableFromInline var feedingOther: UInt = 0

  @inlinable
  init(isEqual: ((Value, Value) -> Bool)?) {
    self.isEqual = isEqual
  }

  /// `value` was delivered to the binding by `side`, on thread `thread`.
  @inlinable
  mutating func received(_ value: Value, from side: Side, thread: UInt) -> Action {
    guard let isEqual else {
      switch side {
      case .receiver:
        if feedingReceiver == thread {
          feedingReceiver = 0
          return .drop
        }
        feedingOther = thread
      case .other:
        if feedingOther == thread {
          feedingOther = 0
          return .drop
        }
        feedingReceiver = thread
      }
      return .forward
    }
    switch side {
    case .receiver:
      if let last = lastOfReceiver, isEqual(last, value) { return .drop }
      lastOfReceiver = value
      if let last = lastOfOther, isEqual(last, value) { return .drop }
      lastOfOther = value
    case .other:
      if let last = lastOfOther, isEqual(last, value) { return .drop }
      lastOfOther = value
      if let last = lastOfReceiver, isEqual(last, value) { return .drop }
      lastOfReceiver = value
    }
    return .forward
  }

  /// `side` replayed `value` when the binding registered (`Equatable` values): it is the value
  /// that side has, so the same value is not fed into it.
  @inlinable
  mutating func replayed(_ value: Value, from side: Side) {
    guard isEqual != nil else { return }
    switch side {
    case .receiver: lastOfReceiver = value
    case .other: lastOfOther = value
    }
  }

  /// The caller has finished feeding `side` (non-`Equatable` values): an echo that has not come
  /// back synchronously will come later, from another thread, and is not expected any more.
  @inlinable
  mutating func forwardFinished(to side: Side) {
    switch side {
    case .receiver: feedingReceiver = 0
    case .other: feedingOther = 0
    }
  }
}
