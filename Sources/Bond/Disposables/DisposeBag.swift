import Synchronization

/// A bag of disposables, disposed together when the bag is disposed or deallocated.
///
/// Put observations into a bag owned by the object that should end them, and they end when that
/// object goes away:
///
/// ```swift
/// final class ViewModel {
///   let bag = DisposeBag()
///   init(name: Observable<String>) {
///     name.observe { print($0) }.disposeIn(bag)
///   }
/// }
/// ```
///
/// Unlike ``CompositeDisposable``, a bag is reusable (Bond's `onReuseBag` pattern):
/// ``dispose()`` disposes everything the bag holds and empties it, and the bag can be filled
/// again afterwards; what is added later is held, not disposed at once, until the next
/// `dispose()` or the bag's deinit.
///
/// ``isDisposed`` is `false` for a new bag, `true` after ``dispose()``, and `false` again once
/// something is added: it tells whether the bag is in its just-disposed state, not whether it is
/// empty.
///
/// - Note: thread-safe. `add` and `dispose` may race from any threads; every added disposable is
///   disposed exactly once, by a `dispose()` that runs after it was added or by the bag's deinit.
///   Contents are disposed after the lock is released, so a disposable may add to or dispose
///   this bag from its own disposal.
public final class DisposeBag: DisposableType {
  @usableFromInline
  struct State {
    @usableFromInline var disposables: [any DisposableType] = []
    @usableFromInline var isDisposed = false

    @inlinable
    init() {}
  }

  @usableFromInline
  let state: LockedState<State>

  /// Creates an empty bag, not disposed.
  @inlinable
  public init() {
    state = LockedState(State())
  }

  deinit {
    // Nobody else can reach the bag now; still, dispose the contents outside the lock.
    let taken = state.withLock { $0.disposables }
    for disposable in taken { disposable.dispose() }
  }

  /// Whether the bag has been disposed and nothing was added since.
  @inlinable
  public var isDisposed: Bool {
    state.withLock { $0.isDisposed }
  }

  /// Adds `disposable` to the bag; it is disposed by the next ``dispose()`` or when the bag is
  /// deallocated.
  @inlinable
  public func add(_ disposable: any DisposableType) {
    state.withLock { state in
      state.disposables.append(disposable)
      state.isDisposed = false
    }
  }

  /// Adds `rhs` to `lhs`; the same as `lhs.add(rhs)`.
  @inlinable
  public static func += (lhs: DisposeBag, rhs: any DisposableType) {
    lhs.add(rhs)
  }

  /// Disposes everything in the bag and empties it. The bag can be filled again afterwards.
  @inlinable
  public func dispose() {
    let taken = state.withLock { state -> [any DisposableType] in
      state.isDisposed = true
      let taken = state.disposables
      state.disposables = []
      return taken
    }
    // Outside the lock: disposing runs user code, which may call back into this bag.
    for disposable in taken { disposable.dispose() }
  }
}
