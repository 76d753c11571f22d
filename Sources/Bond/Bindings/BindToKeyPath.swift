extension EventProducerType {
  /// Binds this producer to a property of `object`: every event (the replay first) is written
  /// through `keyPath`.
  ///
  /// `object` is held weakly: the binding ends at the first event after it is deallocated. The
  /// write happens on the thread that delivers the event (put a `deliverOn` before the binding
  /// when the object must be touched on one queue); the object need not be `Sendable`.
  ///
  /// Cost: each write goes through the standard library's key-path runtime, which allocates a
  /// small access record per write into a class; on a hot path bind to a ``BindableType`` or
  /// `observe` with a closure that assigns the property.
  ///
  /// ```swift
  /// final class Label { var text = "" }
  /// let label = Label()
  /// followers.map { "\($0) followers" }.bindTo(label, \.text)
  /// ```
  /// - Parameters:
  ///   - object: the object to write into; not retained.
  ///   - keyPath: the property to write.
  /// - Returns: a disposable that ends the binding.
  @inlinable
  @discardableResult
  public func bindTo<Target: AnyObject>(
    _ object: Target,
    _ keyPath: ReferenceWritableKeyPath<Target, Event>
  ) -> any DisposableType {
    let binding = SerialDisposable()
    binding.otherDisposable = observe { [weak object] event in
      guard let object else {
        binding.dispose()
        return
      }
      object[keyPath: keyPath] = event
    }
    return binding
  }

  /// Binds this producer to an optional property of `object`: every event is written wrapped
  /// through `keyPath`.
  ///
  /// ```swift
  /// final class Label { var text: String? }
  /// name.bindTo(label, \.text)
  /// ```
  /// `object` is held weakly: the binding ends at the first event after it is deallocated.
  /// - Parameters:
  ///   - object: the object to write into; not retained.
  ///   - keyPath: the optional property to write.
  /// - Returns: a disposable that ends the binding.
  @inlinable
  @discardableResult
  public func bindTo<Target: AnyObject>(
    _ object: Target,
    _ keyPath: ReferenceWritableKeyPath<Target, Event?>
  ) -> any DisposableType {
    let binding = SerialDisposable()
    binding.otherDisposable = observe { [weak object] event in
      guard let object else {
        binding.dispose()
        return
      }
      object[keyPath: keyPath] = event
    }
    return binding
  }
}
