import Bond
import NIOCore

/// One connection of the line protocol. It never blocks its event loop: it sends each full line
/// with the pipeline's synchronous `next` while the pipeline is writable (the registry's last
/// `writability` value); once it is not, it keeps
/// what it has already read (at most a few reads' worth), turns `autoRead` off, and goes on when
/// the registry tells it the pipeline is writable again.
public final class LineHandler: ChannelInboundHandler {
  public typealias InboundIn = ByteBuffer
  public typealias OutboundOut = ByteBuffer

  let pipeline: IngestPipeline
  let input: PipelineInput
  let registry: ConnectionRegistry
  let metrics: IngestMetrics
  let maxLineLength: Int
  let timeouts: ConnectionTimeouts
  let acks: Acknowledgements?
  private var ackSlot: UInt64 = 0
  private var ack = AckState()
  private var closeWhenAcked = false
  private var context: ChannelHandlerContext?
  /// The last read, and since when the bytes of an unfinished line have waited (for the timeouts).
  private var lastRead = NIODeadline.now()
  private var partialSince: NIODeadline?
  private var timer: Scheduled<Void>?
  /// Read and not yet sent: the tail of a line, or what waits while the pipeline is not writable.
  private var pending: ByteBuffer?
  private var paused = false
  private var inputClosed = false
  private var stopped = false

  /// A handler sending into `pipeline`, closing the connection at a line over `maxLineLength` bytes.
  /// `timeouts` closes a connection that sends nothing, or too slowly.
  public init(
    pipeline: IngestPipeline,
    registry: ConnectionRegistry,
    metrics: IngestMetrics,
    maxLineLength: Int,
    timeouts: ConnectionTimeouts = ConnectionTimeouts(),
    acks: Acknowledgements? = nil
  ) {
    self.acks = acks
    self.pipeline = pipeline
    self.input = pipeline.input
    self.registry = registry
    self.metrics = metrics
    self.maxLineLength = maxLineLength
    self.timeouts = timeouts
  }

  public func handlerAdded(context: ChannelHandlerContext) { self.context = context }

  public func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

  public func channelActive(context: ChannelHandlerContext) {
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    if !registry.register(context.channel, handler: bound) {
      stopped = true
      context.close(promise: nil)
      return
    }
    // After the registration: a `true` stored before it is seen here (the registry's lock orders
    // them), and a `true` stored after it resumes this connection.
    if let acks { ackSlot = acks.register(bound) }
    if !registry.isWritable { pauseReading() }
    lastRead = .now()
    scheduleTimeoutCheck(context: context)
    context.fireChannelActive()
  }

  /// Every `checkInterval`: closes the connection if it has sent nothing for `idle`, or if an
  /// unfinished line has waited `read` for its end. A connection paused by the pipeline is neither
  /// (its silence is the server's doing).
  private func scheduleTimeoutCheck(context: ChannelHandlerContext) {
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    timer = context.eventLoop.scheduleTask(in: timeouts.checkInterval) {
      let handler = bound.value
      guard !handler.stopped, let context = handler.context else { return }
      let now = NIODeadline.now()
      if handler.paused {
        handler.lastRead = now
        if handler.partialSince != nil { handler.partialSince = now }
      } else if now - handler.lastRead >= handler.timeouts.idle {
        handler.metrics.closedIdle.increment()
        handler.stopped = true
        handler.pending = nil
        context.close(promise: nil)
        return
      } else if let since = handler.partialSince, now - since >= handler.timeouts.read {
        handler.metrics.closedSlow.increment()
        handler.stopped = true
        handler.pending = nil
        context.close(promise: nil)
        return
      }
      handler.scheduleTimeoutCheck(context: context)
    }
  }

  public func channelInactive(context: ChannelHandlerContext) {
    stopped = true
    timer?.cancel()
    timer = nil
    if ackSlot != 0 { acks?.unregister(ackSlot) }
    pending = nil
    registry.unregister(context.channel)
    context.fireChannelInactive()
  }

  public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !stopped else { return }
    lastRead = .now()
    var bytes = unwrapInboundIn(data)
    if pending == nil || pending!.readableBytes == 0 {
      pending = bytes
    } else {
      pending!.writeBuffer(&bytes)
    }
    drain(force: false)
  }

  public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case ChannelEvent.inputClosed = event {
      // The client has sent everything: send what is left, then close (the client's sign that
      // every line it sent was accepted).
      inputClosed = true
      drain(force: false)
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }

  public func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  /// The pipeline is not writable: stop reading this socket.
  func pauseReading() {
    guard !paused, !stopped, let context else { return }
    paused = true
    metrics.readPauses.increment()
    context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
  }

  /// The pipeline is writable again: send what waits, then read again if it is still writable.
  func resumeReading() {
    guard !stopped else { return }
    drain(force: false)
    guard !stopped, paused, registry.isWritable, input.isWritable, let context else { return }
    paused = false
    context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
  }

  /// Paused on `input.isWritable` while the observer's last value is `true`: the pressure may come
  /// and go before the observer sees it (then no resume comes), so look again in a millisecond, as
  /// long as that lasts. A pause the observer saw is resumed by the registry.
  private func recheckLater() {
    guard let context else { return }
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    context.eventLoop.scheduleTask(in: .milliseconds(1)) {
      let handler = bound.value
      if handler.paused && handler.registry.isWritable { handler.resumeReading() }
    }
  }

  /// Shutdown: send every full line already read (`next` never waits), then stop and close.
  func stopForShutdown() {
    guard !stopped else { return }
    drain(force: true)
    stopped = true
    pending = nil
    if let context {
      context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
      closeOrWaitForAcks()
    }
  }

  /// Closes the connection now (after the pipeline drained).
  func closeNow() {
    stopped = true
    context?.close(promise: nil)
  }

  /// With `--ack`, a connection whose lines are not all stored stays open (reading nothing) until
  /// they are; else it closes now.
  private func closeOrWaitForAcks() {
    if ackSlot != 0 && ack.prefix < ack.sent {
      closeWhenAcked = true
    } else {
      context?.close(promise: nil)
    }
  }

  /// `--ack`: these lines of this connection are stored; answers `ok <n>` when every line up to
  /// `n` is.
  func stored(_ lines: [UInt64]) {
    guard let context else { return }
    if ack.stored(lines) {
      var buffer = context.channel.allocator.buffer(capacity: 24)
      buffer.writeString("ok \(ack.prefix)\n")
      context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }
    if closeWhenAcked && ack.prefix >= ack.sent { context.close(promise: nil) }
  }

  private enum Outcome { case needMore, notWritable, tooLong }

  /// Sends the full lines of `pending` while the pipeline is writable (all of them with `force`).
  private func drain(force: Bool) {
    guard !stopped else { return }
    var buffer = pending ?? ByteBuffer()
    pending = nil
    var sent = 0
    var malformed = 0
    let (consumed, outcome) = buffer.withUnsafeReadableBytes { raw -> (Int, Outcome) in
      switch input {
      case .plain(let producer):
        return send(raw, to: producer, force: force, sent: &sent, malformed: &malformed)
      case .acknowledged(let producer):
        return send(raw, to: producer, force: force, sent: &sent, malformed: &malformed)
      }
    }
    buffer.moveReaderIndex(forwardBy: consumed)
    if sent > 0 {
      metrics.accepted.increment(by: Int64(sent))
      // relaxed: a counter, read for the shutdown log after the event loops have stopped sending.
      pipeline.acceptedCount.add(sent, ordering: .relaxed)
    }
    if malformed > 0 { metrics.malformed.increment(by: Int64(malformed)) }
    switch outcome {
    case .tooLong:
      metrics.overlong.increment()
      stopped = true
      context?.close(promise: nil)
      return
    case .notWritable:
      pending = buffer
      pauseReading()
      if registry.isWritable { recheckLater() }
    case .needMore:
      if buffer.readableBytes > 0 {
        if buffer.readerIndex > 4096 { buffer.discardReadBytes() }
        pending = buffer
        if consumed > 0 || partialSince == nil { partialSince = .now() }
      } else {
        partialSince = nil
      }
      if inputClosed {
        // A half line at the end is not a line: counted as malformed, not sent.
        if buffer.readableBytes > 0 { metrics.malformed.increment() }
        stopped = true
        pending = nil
        closeOrWaitForAcks()
      }
    }
  }

  /// Sends the full lines of `raw` into `producer` while the pipeline is writable (all of them with
  /// `force`); returns the bytes consumed and why it stopped. One loop for both kinds of line,
  /// specialized for each.
  private func send<Line: IngestLine>(
    _ raw: UnsafeRawBufferPointer,
    to producer: EventProducer<Line>,
    force: Bool,
    sent: inout Int,
    malformed: inout Int
  ) -> (Int, Outcome) {
    let registry = self.registry
    let limit = maxLineLength
    let ackSlot = self.ackSlot
    var start = 0
    while start < raw.count {
      if !force && !(registry.isWritable && producer.isWritable) { return (start, .notWritable) }
      guard let newline = LineParser.newline(in: raw, from: start) else {
        return (start, raw.count - start > limit ? .tooLong : .needMore)
      }
      if newline - start > limit { return (start, .tooLong) }
      if newline > start {  // an empty line is skipped silently
        if let reading = LineParser.parse(UnsafeRawBufferPointer(rebasing: raw[start..<newline])) {
          var token: UInt64 = 0
          if ackSlot != 0 {
            ack.sent += 1
            token = Acknowledgements.token(slot: ackSlot, line: ack.sent)
          }
          producer.next(Line(reading, ack: token))
          sent += 1
        } else {
          malformed += 1
        }
      }
      start = newline + 1
    }
    return (start, .needMore)
  }
}

/// When a client connection is closed for its silence.
public struct ConnectionTimeouts: Sendable {
  /// Nothing read for this long (and the connection not paused by the pipeline): closed.
  public var idle: TimeAmount
  /// An unfinished line whose end has not come for this long: closed (a slowloris).
  public var read: TimeAmount
  /// How often a connection looks at both.
  public var checkInterval: TimeAmount

  /// The defaults: idle 60 s, read 10 s, checked every 250 ms.
  public init(
    idle: TimeAmount = .seconds(60),
    read: TimeAmount = .seconds(10),
    checkInterval: TimeAmount = .milliseconds(250)
  ) {
    self.idle = idle
    self.read = read
    self.checkInterval = checkInterval
  }
}
