import Dispatch
import Synchronization

/// A `DispatchQueue` is a ``Scheduler``: `schedule(_:)` is `async`, `schedule(after:_:)` is a
/// cancellable `asyncAfter`.
///
/// A serial queue runs actions one at a time; a concurrent queue may run them at once (the
/// operators that take a scheduler serialize their deliveries themselves).
///
/// - Note: thread-safe.
extension DispatchQueue: Scheduler {
  /// Submits `action` to this queue (`async`).
  public func schedule(_ action: @escaping @Sendable () -> Void) {
    async(execute: action)
  }

  /// Runs `action` on this queue after `seconds` (`asyncAfter`).
  ///
  /// Disposing the returned disposable before the action starts cancels it and releases it (and
  /// what it captured) at once; only a small empty box waits on the queue until the deadline.
  /// - Precondition: `seconds` is 0 or more (not NaN).
  @discardableResult
  public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any DisposableType {
    precondition(seconds >= 0, "DispatchQueue.schedule(after:_:): seconds must be 0 or more, got \(seconds)")
    let scheduled = CancellableAction(action)
    asyncAfter(deadline: .now() + seconds) { scheduled.run() }
    return scheduled
  }
}

/// A `DispatchQueue` tells the time its deadlines count on (`DispatchTime`, the uptime clock).
extension DispatchQueue: ClockedScheduler {
  /// The uptime clock's current time in seconds (`DispatchTime.now()`).
  public var now: Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
  }
}

extension Scheduler where Self == DispatchQueue {
  /// The main queue, so that a call taking any scheduler can be written `deliverOn(.main)`.
  public static var main: DispatchQueue { DispatchQueue.main }

  /// A global concurrent queue, so that a call taking any scheduler can be written
  /// `deliverOn(.global())`.
  public static func global(qos: DispatchQoS.QoSClass = .default) -> DispatchQueue {
    DispatchQueue.global(qos: qos)
  }
}

/// An action that runs at most once, unless it is disposed first; either way it is released.
///
/// Used by `DispatchQueue.schedule(after:_:)`: `DispatchWorkItem.cancel()` would keep the closure
/// (and what it captured) alive on the queue until the deadline, this releases it at once.
/// - Note: thread-safe.
final class CancellableAction: DisposableType {
  /// The action, or `nil` once it has been taken to run or dropped by `dispose()`.
  private let action: LockedState<(@Sendable () -> Void)?>

  init(_ action: @escaping @Sendable () -> Void) {
    self.action = LockedState(action)
  }

  /// `true` once the action was disposed, or has started to run (there is nothing left to cancel).
  var isDisposed: Bool { action.withLock { $0 == nil } }

  /// Runs the action unless it was disposed. Called by the queue, once.
  func run() {
    // Taken under the lock, run after it: the action is user code.
    let taken = action.withLock { action in
      defer { action = nil }
      return action
    }
    taken?()
  }

  func dispose() {
    // Dropped outside the lock: releasing the closure may deinit user objects.
    let dropped = action.withLock { action in
      defer { action = nil }
      return action
    }
    _ = dropped
  }
}
