import CNATS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed call into the NATS C client: its status, the JetStream error code when the server gave
/// one, and the client's text for them.
public struct JetStreamError: Error, CustomStringConvertible, Sendable {
  /// The C client's `natsStatus` (`NATS_TIMEOUT`, `NATS_NO_RESPONDERS`, `NATS_CONNECTION_CLOSED`, ...).
  public let status: Int32
  /// JetStream's error code (`jsErrCode`, e.g. 10058 for a stream name already in use with another
  /// configuration), 0 when the server sent none.
  public let code: Int32
  /// What the call was.
  public let operation: String

  init(_ operation: String, _ status: natsStatus, _ code: jsErrCode = jsErrCode(rawValue: 0)) {
    self.operation = operation
    self.status = Int32(bitPattern: status.rawValue)
    self.code = Int32(bitPattern: code.rawValue)
  }

  /// `NATS_TIMEOUT`: no answer in time (a fetch that found nothing, a publish without an ack).
  public var isTimeout: Bool { status == Int32(bitPattern: NATS_TIMEOUT.rawValue) }

  /// The operation, the client's text for the status and the JetStream code.
  public var description: String {
    let text = String(cString: natsStatus_GetText(natsStatus(rawValue: UInt32(bitPattern: status))))
    return "\(operation): \(text)" + (code != 0 ? " (JetStream error \(code))" : "")
  }
}

/// One connection to a NATS server with JetStream: the C client's `natsConnection` and its `jsCtx`.
///
/// It reconnects by itself, for ever, 100 ms apart, and buffers what is published while it is
/// disconnected (up to 64 MiB): a restarted server is found again without the caller doing
/// anything. Its calls block the calling thread (the C client's I/O), so ``JetStreamSink`` and
/// ``JetStreamSource`` make them on threads of their own; call `ensureStream` and `ensureConsumer`
/// at start, from a thread that may block.
public final class JetStreamConnection: @unchecked Sendable {
  // @unchecked: the C client's connection and context are safe to use from any thread; the
  // pointers are set once in init and freed once in `close()`.
  let connection: OpaquePointer
  let context: OpaquePointer

  /// Connects to `url` (`nats://127.0.0.1:4222`), waiting up to `connectTimeout` for a server
  /// that is not there yet.
  /// - Throws: ``JetStreamError`` when no server answers in time.
  public init(url: String, name: String = "bond", connectTimeout: Duration = .seconds(10)) throws {
    var options: OpaquePointer?
    var status = natsOptions_Create(&options)
    guard status == NATS_OK, let options else { throw JetStreamError("natsOptions_Create", status) }
    defer { natsOptions_Destroy(options) }
    natsOptions_SetURL(options, url)
    natsOptions_SetName(options, name)
    natsOptions_SetMaxReconnect(options, -1)  // for ever: a restarted server is found again
    natsOptions_SetReconnectWait(options, 100)
    natsOptions_SetReconnectBufSize(options, 64 << 20)
    natsOptions_SetTimeout(options, 2000)
    var connection: OpaquePointer?
    let deadline = ContinuousClock.now + connectTimeout
    repeat {
      status = natsConnection_Connect(&connection, options)
      if status == NATS_OK { break }
      usleep(100_000)
    } while ContinuousClock.now < deadline
    guard status == NATS_OK, let connection else { throw JetStreamError("natsConnection_Connect(\(url))", status) }
    var jsOptions = jsOptions()
    jsOptions_Init(&jsOptions)
    jsOptions.Wait = 5000  // milliseconds for an API call's answer
    var context: OpaquePointer?
    status = natsConnection_JetStream(&context, connection, &jsOptions)
    guard status == NATS_OK, let context else {
      natsConnection_Destroy(connection)
      throw JetStreamError("natsConnection_JetStream", status)
    }
    self.connection = connection
    self.context = context
  }

  /// Creates stream `name` on a file store, capturing `subjects`, with a duplicate window of
  /// `duplicateWindow` (a publish repeated with the same message ID within it is stored once); an
  /// existing stream with the same configuration is left as it is. Retries for up to 10 s while
  /// the server is starting.
  /// - Throws: ``JetStreamError`` (a stream of that name with another configuration, for one).
  public func ensureStream(name: String, subjects: [String], duplicateWindow: Duration = .seconds(120)) throws {
    try retryingWhileStarting("js_AddStream(\(name))") {
      var config = jsStreamConfig()
      jsStreamConfig_Init(&config)
      var errorCode = jsErrCode(rawValue: 0)
      let cSubjects = subjects.map { strdup($0) }
      defer { cSubjects.forEach { free($0) } }
      var pointers: [UnsafePointer<CChar>?] = cSubjects.map { UnsafePointer($0) }
      return name.withCString { cName in
        pointers.withUnsafeMutableBufferPointer { list in
          config.Name = cName
          config.Subjects = list.baseAddress
          config.SubjectsLen = Int32(list.count)
          config.Storage = js_FileStorage
          config.Duplicates = duplicateWindow.nanoseconds
          var info: UnsafeMutablePointer<jsStreamInfo>?
          let status = js_AddStream(&info, context, &config, nil, &errorCode)
          if let info { jsStreamInfo_Destroy(info) }
          return (status, errorCode)
        }
      }
    }
  }

  /// Creates the durable pull consumer `durable` on `stream` (explicit acks), or leaves it as it is
  /// when it exists with the same configuration. Every process that shares the name shares its
  /// messages: each message goes to one of them at a time.
  ///
  /// - `ackWait`: how long the server waits for a delivered message's ack before it delivers it
  ///   again (to any process of the consumer): the time a killed process's messages stay unseen.
  ///   Longer than the slowest batch commit, else a slow commit sees its messages redelivered
  ///   (harmless when the sink skips what it has applied, but work done twice).
  /// - `maxAckPending`: at most this many messages delivered and not yet acknowledged, across all
  ///   processes of the consumer; the server delivers nothing more until acks come back. It bounds
  ///   what all the workers hold in memory together, and what a killed one leaves to redeliver.
  /// - Throws: ``JetStreamError``.
  public func ensureConsumer(
    stream: String,
    durable: String,
    filterSubject: String? = nil,
    ackWait: Duration,
    maxAckPending: Int
  ) throws {
    try retryingWhileStarting("js_AddConsumer(\(stream), \(durable))") {
      var config = jsConsumerConfig()
      jsConsumerConfig_Init(&config)
      var errorCode = jsErrCode(rawValue: 0)
      let cDurable = strdup(durable)
      let cFilter = filterSubject.map { strdup($0) }
      defer {
        free(cDurable)
        if let cFilter { free(cFilter) }
      }
      config.Durable = UnsafePointer(cDurable)
      if let cFilter { config.FilterSubject = UnsafePointer(cFilter) }
      config.AckPolicy = js_AckExplicit
      config.DeliverPolicy = js_DeliverAll
      config.AckWait = ackWait.nanoseconds
      config.MaxAckPending = Int64(maxAckPending)
      var info: UnsafeMutablePointer<jsConsumerInfo>?
      let status = stream.withCString { js_AddConsumer(&info, context, $0, &config, nil, &errorCode) }
      if let info { jsConsumerInfo_Destroy(info) }
      return (status, errorCode)
    }
  }

  /// A consumer's progress as the server reports it.
  public struct ConsumerState: Sendable {
    /// Every stream sequence below this one is acknowledged (the ack floor + 1): none of them
    /// will be delivered again.
    public var acknowledgedBelow: UInt64
    /// Messages delivered and not yet acknowledged.
    public var ackPending: Int
    /// Messages delivered more than once.
    public var redelivered: Int
    /// Messages not yet delivered.
    public var pending: UInt64
  }

  /// The consumer's ack floor and counts (`js_GetConsumerInfo`).
  /// - Throws: ``JetStreamError``.
  public func consumerState(stream: String, durable: String) throws -> ConsumerState {
    var info: UnsafeMutablePointer<jsConsumerInfo>?
    var errorCode = jsErrCode(rawValue: 0)
    let status = js_GetConsumerInfo(&info, context, stream, durable, nil, &errorCode)
    guard status == NATS_OK, let info else { throw JetStreamError("js_GetConsumerInfo", status, errorCode) }
    defer { jsConsumerInfo_Destroy(info) }
    return ConsumerState(
      acknowledgedBelow: info.pointee.AckFloor.Stream + 1,
      ackPending: Int(info.pointee.NumAckPending),
      redelivered: Int(info.pointee.NumRedelivered),
      pending: info.pointee.NumPending
    )
  }

  /// Sends what is buffered (acks included) and waits up to `timeout` for the server to have it.
  public func flush(timeout: Duration = .seconds(5)) {
    _ = natsConnection_FlushTimeout(connection, timeout.milliseconds)
  }

  /// Flushes, then closes the connection and frees it. Nothing may use it afterwards.
  public func close() {
    flush()
    jsCtx_Destroy(context)
    natsConnection_Close(connection)
    natsConnection_Destroy(connection)
  }

  /// Runs `call` until it succeeds, for up to 10 s while the answer is "no responders" or a
  /// timeout (JetStream not ready yet).
  private func retryingWhileStarting(_ operation: String, _ call: () -> (natsStatus, jsErrCode)) throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while true {
      let (status, code) = call()
      if status == NATS_OK { return }
      let transient = status == NATS_NO_RESPONDERS || status == NATS_TIMEOUT
      if !transient || ContinuousClock.now > deadline { throw JetStreamError(operation, status, code) }
      usleep(100_000)
    }
  }
}

extension Duration {
  var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }

  var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
