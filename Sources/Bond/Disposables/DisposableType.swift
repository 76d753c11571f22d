/// Something that can be disposed: an observation, a binding, a scheduled action.
///
/// Disposing is idempotent: the second and later calls do nothing.
/// - Note: thread-safe; every conforming type of Bond may be disposed from any thread.
public protocol DisposableType: AnyObject, Sendable {
  /// Whether ``dispose()`` has been called.
  var isDisposed: Bool { get }
  /// Ends what this disposable stands for. Calling it again does nothing.
  func dispose()
}

extension DisposableType {
  /// Puts this disposable into `bag`, which disposes it when the bag is disposed or deallocated.
  public func disposeIn(_ bag: DisposeBag) {
    bag.add(self)
  }
}
