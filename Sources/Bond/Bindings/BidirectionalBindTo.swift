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
  /// For `Equatable` values, prefer the overload chosen automatically, which also settles cycles of
  /// bindings. Two sides changed at the same moment on different threads each forward their value;
  /// which one both sides end with depends on the interleaving.
  /// - Parameter other: a producer that is also bindable, with the same value type.
  /// - Returns: a disposable that ends both directions.
  @inlinable
  @discardableResult
  public func bidirectionalBindTo<Other: EventProducerType & BindableType>(_ other: Other) -> any DisposableType
  where Other.Event == Event, Other.Element == Event {
    bindBidirectionally(self, other, isEqual: nil)
  }
}

extension EventProducerType where Self: BindableType, Element == Event, Event: Equatable {
  /// Binds this producer and `other` both ways; for `Equatable` values.
  ///
  /// As the general overload, and a value equal to the last one the binding delivered to or
  /// received from a side (`other`'s replay counts as received) is not forwarded, so cycles of
  /// bindings (a ↔ b ↔ c ↔ a) settle; the receiver's current value is not fed into `other` when
  /// `other` already has it.
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
    bindBidirectionally(self, other, isEqual: { $0 == $1 })
  }
}

/// The two-way binding of `receiver` and `other`, `isEqual` given for `Equatable` values.
@inlinable
func bindBidirectionally<Receiver: EventProducerType & BindableType, Other: EventProducerType & BindableType>(
  _ receiver: Receiver, _ other: Other, isEqual: ((Receiver.Event, Receiver.Event) -> Bool)?
) -> any DisposableType
where Receiver.Element == Receiver.Event, Other.Event == Receiver.Event, Other.Element == Receiver.Event {
  typealias Machine = BidirectionalBindingStateMachine<Receiver.Event>
  let binding = CompositeDisposable()
  // Both sides hold `binding` and dispose it when deallocated; the sinks hold them weakly.
  let intoReceiver = receiver.sink(binding)
  let intoOther = other.sink(binding)
  let state = LockedState(Machine(isEqual: isEqual))
  let tracksThreads = isEqual == nil

  func forward(_ value: Receiver.Event, from side: Machine.Side, into sink: (Receiver.Event) -> Void) {
    let thread = tracksThreads ? currentThreadID() : 0
    let action = state.withLock { $0.received(value, from: side, thread: thread) }
    guard case .forward = action else { return }
    // Outside the lock: the sink delivers to the other side's observers, which may be this binding.
    sink(value)
    if tracksThreads {
      let target: Machine.Side = side == .receiver ? .other : .receiver
      state.withLock { $0.forwardFinished(to: target) }
    }
  }

  // `other` first, without forwarding its replay (for `Equatable` values it is remembered as the
  // value `other` has): a change it sends from now on goes to `receiver`, and the receiver's
  // replay, fed into `other` below, comes back to this observer and is dropped as an echo.
  // Per-observer state: `registered` runs in delivery order and delivery to one observer is never
  // concurrent, so a plain captured var is safe.
  var otherIsLive = false
  binding.add(
    other.observe({ value in
      if otherIsLive {
        forward(value, from: .other, into: intoReceiver)
      } else if !tracksThreads {
        state.withLock { $0.replayed(value, from: .other) }
      }
    }, registered: { otherIsLive = true }))
  binding.add(receiver.observe { value in forward(value, from: .receiver, into: intoOther) })
  return binding
}
