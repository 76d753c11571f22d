import Synchronization

/// The debug-build check of the rule that every `@exclusivity(unchecked)` field of a sink relies
/// on: only one thread at a time runs the sink's serialized code (the holder of the upstream's or
/// the inbox's delivery rights). `enter()` records the calling thread and stops if another thread
/// (or this one, reentering) is already inside; `leave()` clears it. As RxSwift's
/// `SynchronizationTracker` in DEBUG. Compiled out of release builds: an empty value, and `enter()`
/// and `leave()` inline to nothing.
@usableFromInline
struct SerialAccessCheck: Sendable {
  #if DEBUG
  /// The thread inside, or 0.
  @usableFromInline let holder = SerialAccessHolder()
  #endif

  @inlinable
  init() {}

  /// Stops if a thread is already inside (debug builds); records this one.
  @inlinable @inline(__always)
  func enter() {
    #if DEBUG
    // relaxed: the delivery rights order the threads that legitimately enter; this only records.
    let previous = holder.thread.exchange(currentThreadID(), ordering: .relaxed)
    precondition(previous == 0, "Bond: a sink's serialized state was entered by two threads at once, or reentered")
    #endif
  }

  /// Clears the record (debug builds).
  @inlinable @inline(__always)
  func leave() {
    #if DEBUG
    holder.thread.store(0, ordering: .relaxed)
    #endif
  }
}

#if DEBUG
/// The storage of a ``SerialAccessCheck`` (debug builds only).
@usableFromInline
final class SerialAccessHolder: Sendable {
  @usableFromInline let thread = Atomic<UInt>(0)

  @inlinable
  init() {}
}
#endif
