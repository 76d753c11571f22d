import Bond
import CNATS
import Dispatch
import Foundation
import Synchronization

/// What the server answered to a stored publish.
public struct JetStreamPublishAck: Sendable {
  /// The message's sequence number in the stream.
  public var sequence: UInt64
  /// The server had this message ID already (a retried publish that had been stored): the
  /// message is stored once, at `sequence`.
  public var duplicate: Bool
  /// How many times it was sent (1 unless a send failed or its ack did not come in time).
  public var attempts: Int
}

/// Publishes messages to JetStream and waits for each one's ack, with a bounded number of
/// publishes unacknowledged at once.
///
/// ```swift
/// let sink = JetStreamSink(connection: connection, maxInFlight: 4)
/// let published = lines.map(maxConcurrent: 4, bufferLimit: 64) { line in
///   await sink.publish(subject: "ingest.0", payload: Array(line.utf8), messageID: line.id)
/// }
/// ```
///
/// `publish` suspends its task (no thread blocked) until the server has stored the message. The
/// sends themselves run on `maxInFlight` threads of the sink's own (the C client's publish waits
/// for its ack in the calling thread), never on Swift's cooperative pool: at most `maxInFlight`
/// messages are on the wire without an ack, and the rest wait in their callers. Put it behind a
/// `map(maxConcurrent:)` stage and a slow or unreachable server puts the producer upstream under
/// pressure: the publishes wait, the stage's buffer fills, and its upstream is not writable.
///
/// A send that fails or gets no ack within `ackTimeout` (the server restarting, the connection
/// lost) is sent again, every `retryDelay`, for ever, with the same `Nats-Msg-Id` header
/// (`messageID`): the stream's duplicate window makes a message that was stored but whose ack was
/// lost count once. Message IDs must be unique per message within the stream's duplicate window.
public final class JetStreamSink: Sendable {
  struct Job: @unchecked Sendable {
    // @unchecked: the continuation is resumed once, by the thread that took the job.
    var subject: String
    var payload: [UInt8]
    var messageID: String
    var continuation: CheckedContinuation<JetStreamPublishAck, Never>
  }

  let connection: JetStreamConnection
  let ackTimeout: Duration
  let retryDelay: Duration
  let onRetry: (@Sendable (JetStreamError, Int) -> Void)?
  private let jobs = Mutex<(queue: [Job], stopped: Bool)>(([], false))
  private let ready = DispatchSemaphore(value: 0)
  private let threadCount: Int
  private let published = Atomic<Int>(0)
  private let retried = Atomic<Int>(0)

  /// A sink on `connection` with `maxInFlight` publisher threads.
  ///
  /// `onRetry` (if given) is called on a publisher thread with each failed send and its attempt
  /// number, before the retry.
  /// - Precondition: `maxInFlight` is at least 1.
  public init(
    connection: JetStreamConnection,
    maxInFlight: Int,
    ackTimeout: Duration = .seconds(2),
    retryDelay: Duration = .milliseconds(200),
    onRetry: (@Sendable (JetStreamError, Int) -> Void)? = nil
  ) {
    precondition(
      maxInFlight >= 1,
      "JetStreamSink(connection:maxInFlight:): maxInFlight must be at least 1, got \(maxInFlight)"
    )
    self.connection = connection
    self.ackTimeout = ackTimeout
    self.retryDelay = retryDelay
    self.onRetry = onRetry
    threadCount = maxInFlight
    for index in 0..<maxInFlight {
      let thread = Thread { [self] in self.runPublisher() }
      thread.name = "jetstream-publish-\(index)"
      thread.start()
    }
  }

  /// Messages stored so far (each counted once, duplicates included).
  public var publishedCount: Int { published.load(ordering: .relaxed) }

  /// Sends that failed or timed out and were retried.
  public var retryCount: Int { retried.load(ordering: .relaxed) }

  /// Publishes `payload` to `subject` with the header `Nats-Msg-Id: messageID` and returns once the
  /// stream has stored it (retrying as the type says).
  /// - Precondition: the sink is not shut down.
  public func publish(subject: String, payload: [UInt8], messageID: String) async -> JetStreamPublishAck {
    await withCheckedContinuation { continuation in
      let accepted = jobs.withLock { state in
        if state.stopped { return false }
        state.queue.append(Job(subject: subject, payload: payload, messageID: messageID, continuation: continuation))
        return true
      }
      precondition(accepted, "JetStreamSink.publish(subject:payload:messageID:): called after shutdown()")
      ready.signal()
    }
  }

  /// Stops the publisher threads once the queued publishes are done. Call it after the last
  /// `publish` has returned.
  public func shutdown() {
    jobs.withLock { $0.stopped = true }
    for _ in 0..<threadCount { ready.signal() }
  }

  private func runPublisher() {
    while true {
      ready.wait()
      let next: Job?? = jobs.withLock { state in
        if !state.queue.isEmpty { return .some(state.queue.removeFirst()) }
        return state.stopped ? .none : .some(nil)
      }
      guard let job = next else { return }  // stopped and empty
      guard let job else { continue }
      job.continuation.resume(returning: send(job))
    }
  }

  /// Sends until the stream acknowledges.
  private func send(_ job: Job) -> JetStreamPublishAck {
    var attempts = 0
    while true {
      attempts += 1
      var options = jsPubOptions()
      jsPubOptions_Init(&options)
      options.MaxWait = ackTimeout.milliseconds
      var ack: UnsafeMutablePointer<jsPubAck>?
      var errorCode = jsErrCode(rawValue: 0)
      let status = job.messageID.withCString { id in
        options.MsgId = id
        return job.payload.withUnsafeBytes { bytes in
          js_Publish(&ack, connection.context, job.subject, bytes.baseAddress, Int32(bytes.count), &options, &errorCode)
        }
      }
      if status == NATS_OK, let ack {
        defer { jsPubAck_Destroy(ack) }
        published.add(1, ordering: .relaxed)  // relaxed: a counter for logs
        return JetStreamPublishAck(sequence: ack.pointee.Sequence, duplicate: ack.pointee.Duplicate, attempts: attempts)
      }
      if let ack { jsPubAck_Destroy(ack) }
      retried.add(1, ordering: .relaxed)  // relaxed: a counter for logs
      onRetry?(JetStreamError("js_Publish(\(job.subject))", status, errorCode), attempts)
      Thread.sleep(forTimeInterval: Double(retryDelay.milliseconds) / 1000)
    }
  }
}
