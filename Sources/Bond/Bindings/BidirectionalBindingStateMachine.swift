/// The decisions of a two-way binding of values that are not `Equatable`
/// (``EventProducerType/bidirectionalBindTo(_:)-2k9ah``): whether a value received from one side goes to
/// the other. A pure value: the binding keeps it in a `LockedState`, calls one method per input
/// under the lock, and feeds the value into the other side after unlocking when the answer is
/// ``Action/forward``. (`Equatable` values use stamps instead, see `BindingSide`.)
///
/// While the binding feeds a side on a thread, the first event that side delivers to the binding
/// on that same thread is the echo (a producer that is idle delivers a `next` at once, before
/// anything else) and is dropped. An echo delivered later (the side was busy on another thread)
/// goes back once and then stops the same way; cycles of non-`Equatable` bindings do not settle.
///
/// Each side has its own ``State`` (both sides can be fed at once, from two threads). No transition
/// is impossible, so none stops: two threads race on one side (the later feed replaces the echo
/// the earlier one waits for, and the earlier one's end clears it), and a feed ends after its echo
/// came back (the side is idle again).
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

  /// The state of one side.
  @usableFromInline
  enum State: Equatable {
    /// The binding is not feeding it: every value it delivers is forwarded.
    case idle
    /// The binding is feeding it a value on `thread`: the next value it delivers on that thread is
    /// the echo.
    case feeding(thread: UInt)
  }

  /// What the caller does with the value after unlocking.
  @usableFromInline
  enum Action {
    /// Feed it into the opposite side, then call ``feedEnded(_:)``.
    case forward
    /// Nothing: it is an echo.
    case drop
  }

  @usableFromInline var receiver = State.idle
  @usableFromInline var other = State.idle

  @inlinable
  init() {}

  /// The state of `side`.
  @inlinable
  subscript(side: Side) -> State {
    get { side == .receiver ? receiver : other }
    set {
      switch side {
      case .receiver: receiver = newValue
      case .other: other = newValue
      }
    }
  }

  /// A value was delivered to the binding by `side`, on thread `thread`: the echo of the feed of
  /// `side` on this thread is dropped (the side is idle again); any other value is forwarded, and
  /// the opposite side is fed on this thread.
  @inlinable
  mutating func received(from side: Side, thread: UInt) -> Action {
    if self[side] == .feeding(thread: thread) {
      self[side] = .idle
      return .drop
    }
    // A feed of the opposite side on another thread may be under way: this one replaces it (its
    // echo, if it comes later, goes back once, as an echo that did not come back synchronously).
    self[side.opposite] = .feeding(thread: thread)
    return .forward
  }

  /// The caller has finished feeding `side`: an echo that has not come back synchronously will
  /// come later, from another thread, and is not expected any more. After the echo (the side is
  /// idle), this changes nothing.
  @inlinable
  mutating func feedEnded(_ side: Side) {
    self[side] = .idle
  }
}
