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
    try await Self.run([self], every: interval)
  }

  /// ``run(every:)`` for every one of `all`: one task updates them all, in this order.
  /// - Precondition: `interval` is above zero.
  public static func run(_ all: [StageMetrics], every interval: Duration) async throws {
    precondition(interval > .zero, "StageMetrics.run(every:): interval must be above zero, got \(interval)")
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
