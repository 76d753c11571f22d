import Synchronization

/// A disposable that holds other disposables and disposes all of them when it is disposed.
///
/// ``dispose()`` disposes every contained disposable exactly once and releases them. A disposable
/// added after that is disposed at once (and not kept), so nothing added to a disposed composite
/// stays alive.
///
/// ```swift
/// let composite = CompositeDisposable([first, second])
/// composite += third
/// composite.dispose()     // disposes first, second, third
/// composite.add(fourth)   // disposes fourth at once
/// ```
///
/// - Note: thread-safe. `add` and `dispose` may race from any threads; every added disposable is
///   disposed exactly once by the composite. Children are disposed after the lock is released, so
///   a child may add to or dispose this composite from its own disposal.
public final class CompositeDisposable: DisposableType {
  @usableFromInline
  struct State {
    @usableFromInline var disposables: [any DisposableType]
    @usableFromInline var isDisposed: Bool

    @inlinable
    init(disposables: [any DisposableType]) {
      self.disposables = disposables
      self.isDisposed = false
    }
  }

  @usableFromInline
  let state: LockedState<State>

  /// Creates a composite holding `disposables`.
  /// - Parameter disposables: the disposables to dispose together; none by default.
  @inlinable
  public init(_ disposables: [any DisposableType] = []) {
    state = LockedState(State(disposables: disposables))
  }

  /// Whether ``dispose()`` has been called.
  @inlinable
  public var isDisposed: Bool {
    state.withLock { $0.isDisposed }
  }

  /// Adds `disposable`, to be disposed with this composite; if this composite is already
  /// disposed, disposes `disposable` at once instead.
  @inlinable
  public func add(_ disposable: any DisposableType) {
    let disposeNow = state.withLock { state in
      if state.isDisposed { return true }
      state.disposables.append(disposable)
      return false
    }
    // Outside the lock: disposing runs user code, which may call back into this composite.
    if disposeNow { disposable.dispose() }
  }

  /// Adds `rhs` to `lhs`; the same as `lhs.add(rhs)`.
  @inlinable
  public static func += (lhs: CompositeDisposable, rhs: any DisposableType) {
    lhs.add(rhs)
  }

  /// Disposes every contained disposable once and releases them. Later calls do nothing.
  @inlinable
  public func dispose() {
    let taken = state.withLock { state -> [any DisposableType] in
      if state.isDisposed { return [] }
      state.isDisposed = true
      let taken = state.disposables
      state.disposables = []
      return taken
    }
    // Outside the lock: disposing runs user code, which may call back into this composite.
    for disposable in taken { disposable.dispose() }
  }
}
