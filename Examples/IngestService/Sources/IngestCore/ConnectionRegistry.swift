import NIOCore
import Synchronization

/// The open connections: the limit on their number, the pause and resume of their reads when the
/// pipeline's writability changes, and the stop at shutdown.
///
/// A writability change arrives on the thread that made it (an event loop sending into a full stage,
/// or a lane's drain releasing it); the registry only decides under its lock and then schedules
/// each connection's pause or resume on that connection's event loop: it never blocks and never
/// calls a handler from a foreign thread.
public final class ConnectionRegistry: Sendable {
  struct Entry: Sendable {
    let channel: any Channel
    let handler: NIOLoopBound<LineHandler>
  }

  struct State {
    var entries: [ObjectIdentifier: Entry] = [:]
    var stopping = false
  }

  let maxConnections: Int
  let metrics: IngestMetrics
  private let state = Mutex(State())
  /// The last value the writability observer received. The connections pause on this, not on
  /// `input.isWritable`: a `false` that comes and goes before the observer sees it is never
  /// delivered (nor the `true` after it), so a connection that paused on a glimpse of it would wait
  /// for a resume that never comes. Every `true` stored here is followed by a resume of every
  /// registered connection, so a connection that paused on `false` here is always resumed.
  private let writable = Atomic<Bool>(true)

  /// A registry admitting at most `maxConnections` at once.
  public init(maxConnections: Int, metrics: IngestMetrics) {
    self.maxConnections = maxConnections
    self.metrics = metrics
  }

  /// Whether the connections may send: the writability observer's last value.
  var isWritable: Bool { writable.load(ordering: .acquiring) }

  /// Admits a connection; `false` (refuse it) at the limit or after `stop()` began.
  func register(_ channel: any Channel, handler: NIOLoopBound<LineHandler>) -> Bool {
    let count: Int? = state.withLock { state in
      guard !state.stopping, state.entries.count < maxConnections else { return nil }
      state.entries[ObjectIdentifier(channel)] = Entry(channel: channel, handler: handler)
      return state.entries.count
    }
    if let count { metrics.connections.record(count) } else { metrics.refused.increment() }
    return count != nil
  }

  func unregister(_ channel: any Channel) {
    let count = state.withLock { state in
      state.entries[ObjectIdentifier(channel)] = nil
      return state.entries.count
    }
    metrics.connections.record(count)
  }

  /// The pipeline's writability changed: pause every connection's reads, or resume them.
  public func writabilityChanged(_ writable: Bool) {
    // releasing: a connection that reads `true` (acquiring) sees the state this change came with;
    // the resumes below are scheduled after the store.
    self.writable.store(writable, ordering: .releasing)
    metrics.writable.record(writable ? 1 : 0)
    let entries = state.withLock { Array($0.entries.values) }
    for entry in entries {
      entry.channel.eventLoop.execute {
        if writable { entry.handler.value.resumeReading() } else { entry.handler.value.pauseReading() }
      }
    }
  }

  /// Refuses new connections, then, on each connection's event loop, sends what it has read in
  /// full lines into the pipeline, stops its reads and closes it. On return no connection sends
  /// any more.
  public func stop() async {
    await forEachConnection { $0.stopForShutdown() }
  }

  /// After the pipeline drained: closes the connections still open (with `--ack`, those waiting
  /// for their last acknowledgements, which the writer scheduled on their event loops before: they
  /// are written first).
  public func closeAll() async {
    await forEachConnection { $0.closeNow() }
  }

  private func forEachConnection(_ body: @escaping @Sendable (LineHandler) -> Void) async {
    let entries = state.withLock { state in
      state.stopping = true
      return Array(state.entries.values)
    }
    for entry in entries {
      try? await entry.channel.eventLoop.submit { body(entry.handler.value) }.get()
    }
  }
}
