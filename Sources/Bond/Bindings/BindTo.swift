extension EventProducerType {
  /// Binds this producer to `bindable`: every event (the replay first) is fed into it.
  ///
  /// The target is held weakly (through its ``BindableType/sink(_:)``); when it is deallocated it
  /// disposes the binding, so the source stops observing at once. The binding ends when the source
  /// ends (the returned disposable then reports `isDisposed`); the target is not finished.
  ///
  /// ```swift
  /// let captainName = Observable("Kirk"), nameLabelText = Observable("")
  /// captainName.bindTo(nameLabelText)
  /// captainName.value = "Janeway"   // nameLabelText.value == "Janeway"
  /// ```
  /// - Parameter bindable: the target, whose `Element` is this producer's `Event`.
  /// - Returns: a disposable that ends the binding.
  @inlinable
  @discardableResult
  public func bindTo<Target: BindableType>(_ bindable: Target) -> any DisposableType
  where Target.Element == Event {
    let binding = SerialDisposable()
    let sink = bindable.sink(binding)
    // If the target goes before this assignment, `binding` is already disposed and disposes the
    // observation at once (SerialDisposable's contract).
    binding.otherDisposable = observe(sink, finished: { binding.dispose() })
    return binding
  }

  /// Binds this producer to `bindable`, whose `Element` is `Event?`: every event is fed in wrapped.
  ///
  /// ```swift
  /// let count = Observable(1), maybeCount = Observable<Int?>(nil)
  /// count.bindTo(maybeCount)   // maybeCount.value == 1
  /// ```
  /// The target is held weakly; the binding ends when it is deallocated, or when the source ends
  /// (the target is not finished).
  /// - Parameter bindable: the target.
  /// - Returns: a disposable that ends the binding.
  @inlinable
  @discardableResult
  public func bindTo<Target: BindableType>(_ bindable: Target) -> any DisposableType
  where Target.Element == Event? {
    let binding = SerialDisposable()
    let sink = bindable.sink(binding)
    binding.otherDisposable = observe({ event in sink(event) }, finished: { binding.dispose() })
    return binding
  }
}
