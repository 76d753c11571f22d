import Synchronization

/// A disposable that holds at most one other disposable, which can be replaced.
///
/// Setting ``otherDisposable`` disposes the one it replaces (unless it is the same object).
/// Disposing the serial disposable disposes the current one; any disposable set after that is
/// disposed at once and not kept, and ``otherDisposable`` then reads `nil`.
///
/// ```swift
/// let serial = SerialDisposable()
/// serial.otherDisposable = first
/// serial.otherDisposable = second   // disposes first
/// serial.dispose()                  // disposes second
/// serial.otherDisposable = third    // disposes third at once
/// ```
///
/// - Note: thread-safe. Replacing and disposing may race from any threads; every disposable set
///   is disposed exactly once by the serial disposable (when replaced, when the serial one is
///   disposed, or at once if set after that). Disposal happens after the lock is released.
public final class SerialDisposable: DisposableType {
  @usableFromInline
  struct State {
    @usableFromInline var current: (any DisposableType)?
    @usableFromInline var isDisposed: Bool

    @inlinable
    init(current: (any DisposableType)?) {
      self.current = current
      self.isDisposed = false
    }
  }

  @usableFromInline
  let state: LockedState<State>

  /// Creates a serial disposable holding `otherDisposable`.
  /// - Parameter otherDisposable: the disposable held at first; none by default.
  @inlinable
  public init(otherDisposable: (any DisposableType)? = nil) {
    state = LockedState(State(current: otherDisposable))
  }

  /// Whether ``dispose()`` has been called.
  @inlinable
  public var isDisposed: Bool {
    state.withLock { $0.isDisposed }
  }

  /// The disposable currently held; `nil` once this one is disposed.
  ///
  /// Setting it disposes the previous one, unless it is the same object; once this serial
  /// disposable is disposed, the new value is disposed at once instead of being kept.
  @inlinable
  public var otherDisposable: (any DisposableType)? {
    get {
      state.withLock { $0.current }
    }
    set {
      let toDispose = state.withLock { state -> (any DisposableType)? in
        if state.isDisposed { return newValue }
        let old = state.current
        state.current = newValue
        return old === newValue ? nil : old
      }
      // Outside the lock: disposing runs user code, which may call back into this disposable.
      toDispose?.dispose()
    }
  }

  /// Disposes the current disposable, and every one set from now on. Later calls do nothing.
  @inlinable
  public func dispose() {
    let taken = state.withLock { state -> (any DisposableType)? in
      if state.isDisposed { return nil }
      state.isDisposed = true
      let taken = state.current
      state.current = nil
      return taken
    }
    // Outside the lock: disposing runs user code, which may call back into this disposable.
    taken?.dispose()
  }
}
