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

/// One observation of an ``ObservableArray`` as its internal delivery producer sees it.
///
/// The observer is registered with the producer before its replay is queued; it ignores events until
/// its own `.replay` marker arrives. Since the marker is queued in the same critical section that
/// snapshots the array, the events it ignores are exactly those already contained in the snapshot
/// and the events it forwards exactly those after it: no duplicate, no gap.
/// - Note: not thread-safe; only the producer's (serialized) delivery touches it.
@usableFromInline
final class ObservableArrayObserver<Element> {
  @usableFromInline let token: Int
  @usableFromInline let observer: (ObservableArrayEvent<Element>) -> Void
  // Unchecked: only the producer's serialized delivery touches them (no dynamic exclusivity check
  // per event).
  @exclusivity(unchecked) @usableFromInline var registered: (() -> Void)?
  @exclusivity(unchecked) @usableFromInline var isLive = false

  @inlinable
  init(token: Int, observer: @escaping (ObservableArrayEvent<Element>) -> Void, registered: (() -> Void)?) {
    self.token = token
    self.observer = observer
    self.registered = registered
  }

  @inlinable
  func receive(_ delivery: ObservableArrayDelivery<Element>) {
    switch delivery {
    case .event(let event):
      if isLive { observer(event) }
    case .replay(let token, let event):
      guard token == self.token, !isLive else { return }
      isLive = true
      if let event { observer(event) }
      if let registered {
        self.registered = nil
        registered()
      }
    }
  }
}
