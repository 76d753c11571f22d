extension EventProducerType where Self: BindableType, Element == Event {
  /// Binds this producer and `other` both ways: a change of either reaches the other once.
  ///
  /// This producer's current value (its replay) goes to `other` first; `other`'s replay is not
  /// sent back. Afterwards every event of either side is fed into the other exactly once, with no
  /// echo and no loop: the value the binding feeds into a side is not sent back when that side
  /// delivers it. Both sides are held weakly; the binding ends when either is deallocated.
  ///
  /// ```swift
  /// viewModel.username.bidirectionalBindTo(usernameField.text)
  /// ```
  /// For `Equatable` values the overload chosen automatically also settles groups of bindings under
  /// concurrent writes. For other values, two sides changed at the same moment on different threads
  /// each forward their value, and the two sides may then end with different values (each with the
  /// other's write); cycles of bindings do not settle. With one writer at a time both sides end
  /// equal. See <doc:BindingsGuide>.
  /// - Parameter other: a producer that is also bindable, with the same value type.
  /// - Returns: a disposable that ends both directions.
  @inlinable
  @discardableResult
  public func bidirectionalBindTo<Other: EventProducerType & BindableType>(_ other: Other) -> any DisposableType
  where Other.Event == Event, Other.Element == Event {
    bindBidirectionally(self, other)
  }
}

extension EventProducerType where Self: BindableType, Element == Event, Event: Equatable {
  /// Binds this producer and `other` both ways; for `Equatable` values.
  ///
  /// As the general overload, and a connected group of bindings (a pair, a chain, a cycle
  /// a ↔ b ↔ c ↔ a) settles even when its producers are written from many threads at once: soon
  /// after the writes stop, every side holds the same value, the one written last (in the order
  /// the producers delivered the writes), and every `value =` returns. A value equal to the one a
  /// side has (or is about to get) is not fed into it, so the receiver's current value is not fed
  /// into `other` when `other` already has it.
  ///
  /// How: each delivered write is stamped from one process-wide clock, the stamp travels with the
  /// value through the bindings, and a side accepts only a value with a newer stamp than its newest
  /// (last writer wins); see `BindingSide`.
  ///
  /// ```swift
  /// let model = Observable("a"), field = Observable("b")
  /// model.bidirectionalBindTo(field)   // field.value == "a"
  /// field.value = "c"                  // model.value == "c", delivered once to each
  /// ```
  /// - Parameter other: a producer that is also bindable, with the same value type.
  /// - Returns: a disposable that ends both directions.
  @inlinable
  @discardableResult
  public func bidirectionalBindTo<Other: EventProducerType & BindableType>(_ other: Other) -> any DisposableType
  where Other.Event == Event, Other.Element == Event {
    bindBidirectionallySettling(self, other)
  }
}

/// The two-way binding of `receiver` and `other` for values that are not `Equatable`: an echo is
/// recognised by the thread it comes back on (see ``BidirectionalBindingStateMachine``).
@inlinable
func bindBidirectionally<Receiver: EventProducerType & BindableType, Other: EventProducerType & BindableType>(
  _ receiver: Receiver,
  _ other: Other
) -> any DisposableType
where Receiver.Element == Receiver.Event, Other.Event == Receiver.Event, Other.Element == Receiver.Event {
  typealias Machine = BidirectionalBindingStateMachine
  let binding = CompositeDisposable()
  // Both sides hold `binding` and dispose it when deallocated; the sinks hold them weakly.
  let intoReceiver = receiver.sink(binding)
  let intoOther = other.sink(binding)
  let state = LockedState(Machine())

  func forward(_ value: Receiver.Event, from side: Machine.Side, into sink: (Receiver.Event) -> Void) {
    let thread = currentThreadID()
    let action = state.withLock { $0.received(from: side, thread: thread) }
    guard case .forward = action else { return }
    // Outside the lock: the sink delivers to the other side's observers, which may be this binding.
    sink(value)
    state.withLock { $0.feedEnded(side.opposite) }
  }

  // `other` first, without forwarding its replay: a change it sends from now on goes to
  // `receiver`, and the receiver's replay, fed into `other` below, comes back to this observer on
  // this thread and is dropped as the echo. Per-observer state: `registered` runs in delivery
  // order and delivery to one observer is never concurrent, so a plain captured var is safe.
  var otherIsLive = false
  binding.add(
    other.observe(
      { value in
        if otherIsLive { forward(value, from: .other, into: intoReceiver) }
      },
      registered: { otherIsLive = true }
    )
  )
  binding.add(receiver.observe { value in forward(value, from: .receiver, into: intoOther) })
  return binding
}

/// The two-way binding of `receiver` and `other` for `Equatable` values: stamped values, shared
/// per producer with every other binding of it, so that groups of bindings settle (see `BindingSide`).
@inlinable
func bindBidirectionallySettling<Receiver: EventProducerType & BindableType, Other: EventProducerType & BindableType>(
  _ receiver: Receiver,
  _ other: Other
) -> any DisposableType
where
  Receiver.Element == Receiver.Event,
  Other.Event == Receiver.Event,
  Other.Element == Receiver.Event,
  Receiver.Event: Equatable
{
  let binding = SettlingBinding<Receiver.Event>()
  binding.connect(receiver, other)
  return binding
}
