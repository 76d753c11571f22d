import IngestRules
import PostgresNIO
import Synchronization

/// A statement (or the wait for a connection) not answered within its deadline.
public struct StoreTimeout: Error, Sendable, CustomStringConvertible {
  /// The deadline that passed.
  public var timeout: Duration

  public var description: String { "no answer within \(timeout)" }
}

/// Runs `body`, cancelled past `timeout` (it must then return promptly: the store's closes its
/// connection on cancellation); throws `StoreTimeout` then.
func withDeadline(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
  try await withThrowingTaskGroup(of: Bool.self) { group in
    group.addTask {
      try await body()
      return true
    }
    group.addTask {
      try await Task.sleep(for: timeout)
      return false
    }
    defer { group.cancelAll() }
    guard try await group.next() == true else { throw StoreTimeout(timeout: timeout) }
  }
}

/// The class of a store's error: PostgreSQL's by its SQLSTATE, the memory store's overflow as a
/// data error; anything else (a lost connection, a timeout, a closed pool) is retryable.
public func classify(_ error: any Error) -> StoreErrorClass {
  if let error = error as? PSQLError {
    if error.code == .server, let state = error.serverInfo?[.sqlState] { return StoreErrorClass(sqlState: state) }
    return .retryable
  }
  if error is StoreDataError { return .data }
  return .retryable
}

/// A short description of a store's error for the logs and the dead letters: the SQLSTATE and the
/// server's message when there are.
public func describe(_ error: any Error) -> String {
  if let error = error as? PSQLError {
    if let info = error.serverInfo {
      return "\(info[.sqlState] ?? "?????") \(info[.message] ?? "")"
    }
    return "\(error.code)"
  }
  if let error = error as? StoreDataError { return "22003 total out of range for key \(error.key)" }
  return String(describing: error)
}

/// The service's state as `GET /health` reports it.
public final class Health: Sendable {
  /// A state.
  public enum State: Int, Sendable {
    /// Listening; the store is being prepared (its tables created).
    case starting
    /// The store takes writes.
    case ready
    /// The last write or preparation failed with a retryable error: the database is unreachable.
    case degraded
    /// Shutting down: no new connections, the pipeline draining.
    case draining
  }

  private let state = Atomic<Int>(State.starting.rawValue)

  /// A health in `starting`.
  public init() {}

  /// The state.
  public var current: State { State(rawValue: state.load(ordering: .relaxed)) ?? .starting }

  /// Moves to `new`, except out of `draining` (the last state). relaxed: a report for HTTP, it
  /// publishes nothing else.
  public func set(_ new: State) {
    var old = state.load(ordering: .relaxed)
    while old != State.draining.rawValue {
      let (exchanged, original) = state.compareExchange(
        expected: old,
        desired: new.rawValue,
        ordering: .relaxed
      )
      if exchanged { return }
      old = original
    }
  }

  /// The text of `GET /health`, and whether it is healthy (HTTP 200, else 503).
  public var report: (healthy: Bool, text: String) {
    switch current {
    case .starting: return (false, "starting\n")
    case .ready: return (true, "ready\n")
    case .degraded: return (false, "degraded: database unreachable\n")
    case .draining: return (false, "draining\n")
    }
  }
}
