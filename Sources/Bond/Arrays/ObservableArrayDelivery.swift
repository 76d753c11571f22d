/// What an ``ObservableArray`` hands to its internal delivery producer, in mutation order.
@usableFromInline
enum ObservableArrayDelivery<Element> {
  /// A mutation's event, for every observer that has received its replay.
  case event(ObservableArrayEvent<Element>)
  /// The start of observation `token`: its replay (`nil` for an observation that took its
  /// snapshot synchronously). Every other observer ignores it.
  case replay(token: Int, ObservableArrayEvent<Element>?)
}

extension ObservableArrayDelivery: Sendable where Element: Sendable {}
