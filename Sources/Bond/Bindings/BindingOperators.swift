/// The precedence of the binding operators `->>` and `->><`: left-associative, looser than
/// comparison and `??` (so `a.map(f) ?? b ->> c` and `x == y ->> flag` bind the whole left side),
/// tighter than assignment.
precedencegroup BindingPrecedence {
  associativity: left
  lowerThan: ComparisonPrecedence, NilCoalescingPrecedence
  higherThan: AssignmentPrecedence
}

/// One-way binding: `source ->> target` is `source.bindTo(target)`.
infix operator ->> : BindingPrecedence

/// Two-way binding: `a ->>< b` is `a.bidirectionalBindTo(b)`.
infix operator ->>< : BindingPrecedence

/// Binds `source` to `target`: ``EventProducerType/bindTo(_:)-mchj``.
/// - Returns: a disposable that ends the binding.
@inlinable
@discardableResult
public func ->> <Source: EventProducerType, Target: BindableType>(
  source: Source,
  target: Target
) -> any DisposableType where Target.Element == Source.Event {
  source.bindTo(target)
}

/// Binds `source` to an optional `target`: ``EventProducerType/bindTo(_:)-7qwee``.
/// - Returns: a disposable that ends the binding.
@inlinable
@discardableResult
public func ->> <Source: EventProducerType, Target: BindableType>(
  source: Source,
  target: Target
) -> any DisposableType where Target.Element == Source.Event? {
  source.bindTo(target)
}

/// Binds `left` and `right` both ways: ``EventProducerType/bidirectionalBindTo(_:)-2k9ah``.
/// - Returns: a disposable that ends both directions.
@inlinable
@discardableResult
public func ->>< <Left: EventProducerType & BindableType, Right: EventProducerType & BindableType>(
  left: Left,
  right: Right
) -> any DisposableType
where Left.Element == Left.Event, Right.Event == Left.Event, Right.Element == Left.Event {
  left.bidirectionalBindTo(right)
}

/// Binds `left` and `right` both ways, for `Equatable` values (cycles settle):
/// ``EventProducerType/bidirectionalBindTo(_:)-3zoi4``.
/// - Returns: a disposable that ends both directions.
@inlinable
@discardableResult
public func ->>< <Left: EventProducerType & BindableType, Right: EventProducerType & BindableType>(
  left: Left,
  right: Right
) -> any DisposableType
where Left.Element == Left.Event, Right.Event == Left.Event, Right.Element == Left.Event, Left.Event: Equatable {
  left.bidirectionalBindTo(right)
}
