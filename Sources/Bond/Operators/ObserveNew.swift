extension EventProducerType {
  /// Like ``EventProducerType/observe(_:)``, without the events that the registration itself
  /// delivers: the replay, and for a chain what it derives from its sources' replay and `startWith`.
  ///
  /// ```swift
  /// let name = Observable("Jim")
  /// name.observeNew { print($0) }   // prints nothing yet
  /// name.value = "Spock"            // prints "Spock"
  /// ```
  /// - Returns: a disposable that ends the observation.
  @inlinable
  @discardableResult
  public func observeNew(_ observer: @escaping (Event) -> Void) -> any DisposableType {
    observeNew(with: EventObserver(observer))
  }

  /// ``observeNew(_:)`` with the end: `finished` is called once after the last event.
  @inlinable
  @discardableResult
  public func observeNew(_ observer: @escaping (Event) -> Void, finished: @escaping () -> Void) -> any DisposableType {
    observeNew(with: EventObserver(observer, finished: finished))
  }

  /// ``observeNew(_:)`` for a whole ``EventObserver``: its `registered` is called as usual.
  @inlinable
  @discardableResult
  public func observeNew(with observer: EventObserver<Event>) -> any DisposableType {
    // Per-observer state, captured once at subscription. `registered` runs in delivery order for
    // this observer, and delivery to one observer is never concurrent (guarantee 1), so a plain
    // captured var is safe here.
    var isLive = false
    let registered = observer.registered
    return observe(
      with: EventObserver(
        { event in if isLive { observer.event(event) } },
        finished: observer.finished,
        registered: {
          isLive = true
          registered?()
        },
        pressure: observer.pressure
      )
    )
  }
}
