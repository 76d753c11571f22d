import Synchronization

/// The result of ``EventProducerType/log(_:to:)``: the events of `Upstream`, each also written to
/// a log line with a tag and the delivering thread.
/// - Note: thread-safe as far as `Upstream` and `output` are.
public struct Log<Upstream: EventProducerType>: EventProducerType {
  /// The producer whose events are logged.
  @usableFromInline let upstream: Upstream
  /// The prefix of every line.
  @usableFromInline let tag: String
  /// Where the lines go.
  @usableFromInline let output: (String) -> Void

  @inlinable
  init(upstream: Upstream, tag: String, output: @escaping (String) -> Void) {
    self.upstream = upstream
    self.tag = tag
    self.output = output
  }

  /// The upstream's replay length.
  @inlinable
  public var replayLength: Int { upstream.replayLength }

  /// Observes the upstream once for `observer`: the events as described above; the end and
  /// `registered` pass through.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Upstream.Event>) -> any DisposableType {
    let tag = self.tag
    let output = self.output
    output("\(tag) observe (thread \(logThreadName()))")
    let finished = observer.finished
    let registered = observer.registered
    let observation = upstream.observe(
      with: EventObserver(
        { event in
          output("\(tag) event: \(event) (thread \(logThreadName()))")
          observer.event(event)
        },
        finished: {
          output("\(tag) finished (thread \(logThreadName()))")
          finished?()
        },
        registered: {
          output("\(tag) registered (thread \(logThreadName()))")
          registered?()
        },
        pressure: observer.pressure
      )
    )
    return LogDisposable(observation: observation) { output("\(tag) disposed (thread \(logThreadName()))") }
  }
}

/// The calling thread as a short hexadecimal id, for log lines.
@usableFromInline
func logThreadName() -> String {
  String(currentThreadID(), radix: 16)
}

/// Disposes the logged observation, then writes the disposal line (once).
@usableFromInline
final class LogDisposable: DisposableType, @unchecked Sendable {
  // @unchecked: `observation` is immutable and thread-safe; `onDispose` runs once, guarded by `ended`.
  @usableFromInline let ended = Atomic<Bool>(false)
  @usableFromInline let observation: any DisposableType
  @usableFromInline let onDispose: () -> Void

  @inlinable
  init(observation: any DisposableType, onDispose: @escaping () -> Void) {
    self.observation = observation
    self.onDispose = onDispose
  }

  @usableFromInline
  var isDisposed: Bool { observation.isDisposed }

  @usableFromInline
  func dispose() {
    guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
    observation.dispose()
    onDispose()
  }
}

extension EventProducerType {
  /// Writes a line for every event (with `tag` and the delivering thread), for the registration and
  /// for the disposal, then forwards the event unchanged. For debugging a chain:
  ///
  /// ```swift
  /// prices.log("prices").map { $0 * 2 }.observe { _ in }
  /// // prices observe (thread 7f1c2a4b6740)
  /// // prices registered (thread 7f1c2a4b6740)
  /// // prices event: 21 (thread 7f1c2a4b6740)
  /// ```
  /// - Parameters:
  ///   - tag: the prefix of every line.
  ///   - output: where the lines go; `print` by default.
  @inlinable
  public func log(_ tag: String = "", to output: @escaping (String) -> Void = { print($0) }) -> Log<Self> {
    Log(upstream: self, tag: tag, output: output)
  }
}
