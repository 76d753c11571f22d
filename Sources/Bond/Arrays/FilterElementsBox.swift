/// The mutable home of one observation's ``FilterElementsState``.
/// - Note: not thread-safe; only the observation's serialized deliveries touch it.
@usableFromInline
final class FilterElementsBox<Element> {
  @usableFromInline var state = FilterElementsState<Element>()
  @inlinable init() {}
}
