import Bond

extension StageMetrics {
  /// Calls ``update()`` now and then every `interval`, until the task is cancelled: it then
  /// updates a last time (so that a shutdown's last counts are recorded) and throws
  /// `CancellationError`.
  ///
  /// ```swift
  /// let updating = Task { try await metrics.run(every: .seconds(1)) }
  /// // at shutdown:
  /// updating.cancel()
  /// ```
  /// - Precondition: `interval` is above zero.
  public func run(every interval: Duration) async throws {
    try await Self.run([self], every: interval, call: "StageMetrics.run(every:)")
  }

  /// ``run(every:)`` for every one of `all`: one task updates them all, in this order.
  /// - Precondition: `interval` is above zero.
  public static func run(_ all: [StageMetrics], every interval: Duration) async throws {
    try await run(all, every: interval, call: "StageMetrics.run(_:every:)")
  }

  /// `run(every:)` and `run(_:every:)`: `call` is how the user spelled the call, for the
  /// precondition message.
  private static func run(_ all: [StageMetrics], every interval: Duration, call: StaticString) async throws {
    precondition(interval > .zero, "\(call): interval must be above zero, got \(interval)")
    do {
      while true {
        update(all)
        try await Task.sleep(for: interval)
      }
    } catch {
      update(all)
      throw error
    }
  }
}
