extension EventProducerType {
  /// Like ``observe(_:)``, without the events the registration itself delivers: the replay, and
  /// for a chain what it derives from its sources' replay and `startWith`.
  ///
  /// ```swift
  /// let captain = Observable("Jim")
  /// captain.observeNew { print($0) }   // prints nothing yet
  /// captain.value = "Spock"            // prints: Spock
  /// ```
  /// - Parameter observer: receives every event sent after the registration.
  /// - Returns: a disposable that ends the observation.
  @inlinable
  @discardableResult
  public func observeNew(_ observer: @escaping (Event) -> Void) -> any DisposableType {
    // Per-observer state, captured once at subscription. `registered` runs in delivery order for
    // this observer, and delivery to one observer is never concurrent (guarantee 1), so a plain
    // captured var is safe here.
    var isLive = false
    return observe({ event in if isLive { observer(event) } }, registered: { isLive = true })
  }
}
