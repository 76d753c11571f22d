import Bond
import CNATS
import Dispatch
import Foundation
import Synchronization

/// One message delivered by a ``JetStreamSource``: its subject, its payload (copied), its place in
/// the stream, and the handle to acknowledge it.
///
/// Acknowledge it (``ack()``) once what it carries is safe (committed); a message never
/// acknowledged is delivered again, to any process of the consumer, after the consumer's
/// `ackWait`.
public final class JetStreamMessage: @unchecked Sendable {
  // @unchecked: the C message is freed once, by whoever takes `handle` (its address) first.
  private let handle: Atomic<UInt>
  /// The subject it was published to.
  public let subject: String
  /// The payload.
  public let payload: [UInt8]
  /// Its sequence number in the stream: unique and stable across redeliveries (a sink that
  /// records the sequences it has applied skips a redelivered message).
  public let streamSequence: UInt64
  /// How many times it has been delivered (1 the first time).
  public let deliveries: UInt64

  init(_ message: OpaquePointer) {
    subject = String(cString: natsMsg_GetSubject(message))
    let length = Int(natsMsg_GetDataLength(message))
    if length > 0, let data = natsMsg_GetData(message) {
      payload = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        Array(UnsafeBufferPointer(start: $0, count: length))
      }
    } else {
      payload = []
    }
    var meta: UnsafeMutablePointer<jsMsgMetaData>?
    if natsMsg_GetMetaData(&meta, message) == NATS_OK, let meta {
      streamSequence = meta.pointee.Sequence.Stream
      deliveries = meta.pointee.NumDelivered
      jsMsgMetaData_Destroy(meta)
    } else {
      streamSequence = 0
      deliveries = 0
    }
    handle = Atomic(UInt(bitPattern: Int(bitPattern: UnsafeMutableRawPointer(message))))
  }

  /// The C message, once: `nil` after the first call.
  private func take() -> OpaquePointer? {
    // acquiringAndReleasing: the taker frees what the fetch thread wrote; a second taker sees 0.
    OpaquePointer(bitPattern: handle.exchange(0, ordering: .acquiringAndReleasing))
  }

  deinit {
    if let message = take() { natsMsg_Destroy(message) }
  }

  /// Acknowledges the message (`+ACK`, sent without waiting for the server; the connection's
  /// `flush` or `close` sends what is buffered). A second call does nothing.
  public func ack() {
    guard let message = take() else { return }
    _ = natsMsg_Ack(message, nil)
    natsMsg_Destroy(message)
  }
}

/// A durable JetStream pull consumer as a Bond producer: ``messages`` sends each message fetched.
///
/// ```swift
/// let source = try JetStreamSource(connection: connection, stream: "INGEST", durable: "workers",
///                                  ackWait: .seconds(30), maxAckPending: 1_024)
/// let done = source.messages.batches(on: queue, maxCount: 64, bufferLimit: 256)
///   .map(maxConcurrent: 1) { batch in await store.commit(batch); batch.forEach { $0.ack() } }
///   .observe { _ in } finished: { ... }
/// source.start()
/// ...
/// source.stop()   // no more fetches; `messages` finishes after the last one
/// // ... once the last batch is committed and acknowledged:
/// source.close()
/// connection.close()
/// ```
///
/// Pull is demand: a fetch of up to `fetchBatch` messages is asked for only while `messages` is
/// writable (Reactive Streams' `request(n)`, Akka's and Reactor's Kafka consumers' pause). While a
/// stage downstream is under pressure the source waits and the server keeps the messages (another
/// process of the consumer may take them). One fetch's messages are sent with `next` even if the
/// pressure comes in between, so a stage may hold up to `fetchBatch` over its `bufferLimit`.
///
/// The fetch blocks in the C client, so it runs on a thread of the source's own, never on Swift's
/// cooperative pool. The messages are delivered on that thread (add a stage to move them).
///
/// The consumer is created with explicit acks, `ackWait` and `maxAckPending` (see
/// ``JetStreamConnection/ensureConsumer(stream:durable:filterSubject:ackWait:maxAckPending:)``),
/// and the source binds to it: processes that share `durable` share its messages, and a message
/// acknowledged by none of them (its process killed) is delivered again after `ackWait`.
public final class JetStreamSource: Sendable {
  /// The messages fetched, in the order fetched; finishes after ``stop()``, once the last fetch
  /// is sent.
  public let messages = EventProducer<JetStreamMessage>()
  let connection: JetStreamConnection
  let fetchBatch: Int
  let fetchTimeout: Duration
  let onError: (@Sendable (JetStreamError) -> Void)?
  private let subscription: SubscriptionHandle
  private let running = Atomic<Bool>(false)
  private let stopping = Atomic<Bool>(false)
  private let writable = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)
  private let fetched = Atomic<Int>(0)

  final class SubscriptionHandle: @unchecked Sendable {
    // @unchecked: the C subscription is used by the fetch thread only, and freed after it ends.
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
  }

  /// Creates (or finds) the durable pull consumer `durable` on `stream` and binds to it; call
  /// ``start()`` to begin fetching.
  ///
  /// - `ackWait`, `maxAckPending`: the consumer's; see
  ///   ``JetStreamConnection/ensureConsumer(stream:durable:filterSubject:ackWait:maxAckPending:)``.
  /// - `fetchBatch`: at most this many messages per fetch.
  /// - `fetchTimeout`: how long one fetch waits for messages; ``stop()`` takes effect within it.
  /// - `onError`: called on the fetch thread with each failed fetch (not a timeout), before the
  ///   source tries again 100 ms later (a restarting server).
  /// - Throws: ``JetStreamError`` when the consumer cannot be created or bound.
  /// - Precondition: `fetchBatch` is at least 1.
  public init(
    connection: JetStreamConnection,
    stream: String,
    durable: String,
    filterSubject: String? = nil,
    ackWait: Duration,
    maxAckPending: Int,
    fetchBatch: Int = 64,
    fetchTimeout: Duration = .milliseconds(500),
    onError: (@Sendable (JetStreamError) -> Void)? = nil
  ) throws {
    precondition(
      fetchBatch >= 1,
      "JetStreamSource(connection:stream:durable:...): fetchBatch must be at least 1, got \(fetchBatch)"
    )
    try connection.ensureConsumer(
      stream: stream,
      durable: durable,
      filterSubject: filterSubject,
      ackWait: ackWait,
      maxAckPending: maxAckPending
    )
    var options = jsSubOptions()
    jsSubOptions_Init(&options)
    var subscription: OpaquePointer?
    var errorCode = jsErrCode(rawValue: 0)
    let status = stream.withCString { cStream in
      durable.withCString { cDurable in
        options.Stream = cStream
        options.Consumer = cDurable  // bind to the consumer made above: never create one here
        return js_PullSubscribe(
          &subscription,
          connection.context,
          filterSubject ?? "",
          cDurable,
          nil,
          &options,
          &errorCode
        )
      }
    }
    guard status == NATS_OK, let subscription else {
      throw JetStreamError("js_PullSubscribe(\(durable))", status, errorCode)
    }
    self.connection = connection
    self.subscription = SubscriptionHandle(subscription)
    self.fetchBatch = fetchBatch
    self.fetchTimeout = fetchTimeout
    self.onError = onError
  }

  /// Messages fetched so far.
  public var fetchedCount: Int { fetched.load(ordering: .relaxed) }

  /// Starts the fetch thread. A second call does nothing.
  public func start() {
    // relaxed: only one caller wins the exchange; the thread reads nothing this call wrote.
    guard !running.exchange(true, ordering: .relaxed) else { return }
    let thread = Thread { [self] in self.fetchLoop() }
    thread.name = "jetstream-fetch"
    thread.start()
  }

  /// Stops fetching: the fetch in progress (at most `fetchTimeout`) is the last; its messages are
  /// sent, then ``messages`` finishes. Returns at once; ``waitUntilStopped()`` waits for the end.
  public func stop() {
    // releasing: the fetch thread's acquiring load sees it before its next fetch.
    stopping.store(true, ordering: .releasing)
    writable.signal()
    if !running.load(ordering: .relaxed) {
      messages.finish()
      finished.signal()
    }
  }

  /// Waits (suspended) until the fetch thread has ended and ``messages`` has finished.
  public func waitUntilStopped() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      // A thread of its own: the wait blocks, and Swift's pool is not for blocking.
      Thread {
        self.finished.wait()
        self.finished.signal()  // for another waiter
        continuation.resume()
      }.start()
    }
  }

  /// Frees the subscription, once the source is stopped and every message it sent is
  /// acknowledged or released (an ack needs the subscription). The consumer stays on the server.
  public func close() {
    // acquiring: pairs with stop()'s releasing store.
    precondition(stopping.load(ordering: .acquiring), "JetStreamSource.close(): call stop() first")
    finished.wait()
    finished.signal()
    natsSubscription_Destroy(subscription.pointer)
  }

  private func fetchLoop() {
    let messages = self.messages
    let writable = self.writable
    // A resume of the pressure wakes the wait below; the wait also looks again every 5 ms, for a
    // `false` and `true` that came and went before this observer saw them.
    let observer = messages.writability.observe { isWritable in
      if isWritable { writable.signal() }
    }
    defer {
      observer.dispose()
      messages.finish()
      finished.signal()
    }
    // acquiring: pairs with stop()'s releasing store.
    while !stopping.load(ordering: .acquiring) {
      if !messages.isWritable {
        _ = writable.wait(timeout: .now() + .milliseconds(5))
        continue
      }
      var list = natsMsgList()
      var errorCode = jsErrCode(rawValue: 0)
      let status = natsSubscription_Fetch(
        &list,
        subscription.pointer,
        Int32(fetchBatch),
        fetchTimeout.milliseconds,
        &errorCode
      )
      if status == NATS_OK {
        let count = Int(list.Count)
        for index in 0..<count {
          guard let handle = list.Msgs[index] else { continue }
          list.Msgs[index] = nil  // the list's destroy leaves it to the JetStreamMessage
          messages.next(JetStreamMessage(handle))
        }
        fetched.add(count, ordering: .relaxed)  // relaxed: a counter for logs
        natsMsgList_Destroy(&list)
      } else if status != NATS_TIMEOUT {
        onError?(JetStreamError("natsSubscription_Fetch", status, errorCode))
        Thread.sleep(forTimeInterval: 0.1)
      }
    }
  }
}
