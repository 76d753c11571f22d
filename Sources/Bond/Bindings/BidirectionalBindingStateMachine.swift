/// The decisions of a two-way binding of values that are not `Equatable`
/// (``EventProducerType/bidirectionalBindTo(_:)-2k9ah``): whether a value received from one side goes to
/// the other. A pure value: the binding keeps it in a `LockedState`, calls one method per event
/// under the lock, and feeds the value into the other side after unlocking when the answer is
/// ``Action/forward``. (`Equatable` values use stamps instead, see `BindingSide`.)
///
/// While the binding feeds a side on a thread, the first event that side delivers to the binding
/// on that same thread is the echo (a producer that is idle delivers a `next` at once, before
/// anything else) and is dropped. An echo delivered later (the side was busy on another thread)
/// goes back once and then stops the same way; cycles of non-`Equatable` bindings do not settle.
@usableFromInline
struct BidirectionalBindingStateMachine {
  /// A side of the binding.
  @usableFromInline
  enum Side {
    /// The producer `bidirectionalBindTo` is called on.
    case receiver
    /// Its argument.
    case other

    /// The side a value received from this one is fed into.
    @inlinable
    var opposite: Side { self == .receiver ? .other : .receiver }
  }

  /// What the caller does with the value after unlocking.
  @usableFromInline
  enum Action {
    /// Feed it into the opposite side, then call ``forwardFinished(to:)``.
    case forward
    /// Nothing: it is an echo.
    case drop
  }

  /// The thread feeding each side right now, waiting for its echo; 0 when none.
  @usableFromInline var feedingReceiver: UInt = 0
  @usableFromInline var feedingOther: UInt = 0

  @inlinable
  init() {}

  /// A value was delivered to the binding by `side`, on thread `thread`.
  @inlinable
  mutating func received(from side: Side, thread: UInt) -> Action {
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

  /// The caller has finished feeding `side`: an echo that has not come back synchronously will
  /// come later, from another thread, and is not expected any more.
  @inlinable
  mutating func forwardFinished(to side: Side) {
    switch side {
    case .receiver: feedingReceiver = 0
    case .other: feedingOther = 0
    }
  }
}
