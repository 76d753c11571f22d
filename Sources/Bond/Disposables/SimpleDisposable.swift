import Synchronization

/// A disposable that does nothing but remember that it was disposed.
///
/// Useful where a ``DisposableType`` is required but there is nothing to clean up, for example a
/// producer closure with no resources, or an observation that ended before it started.
///
/// ```swift
/// let disposable = SimpleDisposable()
/// disposable.dispose()
/// disposable.isDisposed   // true
/// ```
///
/// - Note: thread-safe.
public final class SimpleDisposable: DisposableType {
  @usableFromInline
  let disposed: Atomic<Bool>

  /// Creates a disposable, not yet disposed unless `isDisposed` is `true`.
  /// - Parameter isDisposed: pass `true` for an already disposed one.
  @inlinable
  public init(isDisposed: Bool = false) {
    disposed = Atomic(isDisposed)
  }

  /// Whether ``dispose()`` has been called.
  @inlinable
  public var isDisposed: Bool {
    // Acquiring pairs with the releasing store in dispose(): nothing else is published, but a
    // reader that sees `true` also sees whatever the disposing thread did before.
    disposed.load(ordering: .acquiring)
  }

  /// Marks this disposable as disposed.
  @inlinable
  public func dispose() {
    disposed.store(true, ordering: .releasing)
  }
}
