/// What a source of a `combineLatest` observation sends into the observation's private serializer:
/// its event at its own position of `values` (nil everywhere else), or, with `source` ==
/// ``registeredMarker``, the news that it has finished registering.
///
/// One value per event, built without allocation (a tuple of optionals, laid out inline).
@usableFromInline
struct CombineLatestInput<each Value> {
  /// The `source` of an input that says a source has finished registering.
  @inlinable static var registeredMarker: Int { -1 }

  /// The position of the source that sent, or ``registeredMarker``.
  @usableFromInline let source: Int
  /// The event at position `source`, nil at every other position.
  @usableFromInline let values: (repeat (each Value)?)

  @inlinable
  init(source: Int, values: (repeat (each Value)?)) {
    self.source = source
    self.values = values
  }

  /// The input of an event `value` sent by the source at `position` (whose event type is `V`).
  @inlinable
  static func event<V>(_ value: V, at position: Int) -> Self {
    var index = 0
    return Self(source: position, values: (repeat placed(value, at: position, index: &index, as: (each Value).self)))
  }

  /// The input that says a source has finished registering.
  @inlinable
  static func registered() -> Self {
    Self(source: registeredMarker, values: (repeat nothing(as: (each Value).self)))
  }

  /// `value` if `index` is `position` (then `T` is `V`), nil otherwise; advances `index`.
  @inlinable
  static func placed<V, T>(_ value: V, at position: Int, index: inout Int, as _: T.Type) -> T? {
    defer { index += 1 }
    // The cast is an identity: the element at `position` has the type of that source's events.
    // Specialized, it folds away.
    return index == position ? (value as! T) : nil
  }

  @inlinable
  static func nothing<T>(as _: T.Type) -> T? { nil }
}

/// The state of one `combineLatest` observation: the latest event of each source, and how many
/// sources have finished registering.
///
/// A pure value: it is owned by the single observer of the observation's serializer, which is
/// never called concurrently, so it needs no lock; it can be tested with no threads at all.
@usableFromInline
struct CombineLatestStateMachine<each Value> {
  /// The latest event of each source; nil until that source has sent.
  @usableFromInline var latest: (repeat (each Value)?)
  /// Whether every source has sent (never goes back to false).
  @usableFromInline var isComplete = false
  /// The sources that have not finished registering yet.
  @usableFromInline var unregisteredSources: Int

  @inlinable
  init() {
    latest = (repeat CombineLatestInput<repeat each Value>.nothing(as: (each Value).self))
    var count = 0
    for _ in repeat (each Value).self { count += 1 }
    unregisteredSources = count
  }

  /// A source sent: `input.values` holds its event at its position and nil elsewhere.
  /// - Returns: the tuple to deliver, or nil while some source has not sent yet.
  @inlinable
  mutating func valueReceived(_ input: CombineLatestInput<repeat each Value>) -> (repeat each Value)? {
    latest = (repeat Self.newer(each input.values, than: each latest))
    if !isComplete {
      for value in repeat each latest { if value == nil { return nil } }
      isComplete = true
    }
    return (repeat (each latest).unsafelyUnwrapped)
  }

  /// A source has finished registering.
  /// - Returns: true when it was the last one: the observation's `registered` is due now.
  @inlinable
  mutating func sourceRegistered() -> Bool {
    unregisteredSources -= 1
    return unregisteredSources == 0
  }

  @inlinable
  static func newer<T>(_ new: T?, than old: T?) -> T? { new ?? old }
}
