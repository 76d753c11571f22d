import Bond
import NIOCore

/// One connection of the line protocol. It never blocks its event loop: it sends each full line
/// with the pipeline's synchronous `next` while the pipeline is writable (the registry's last
/// `writability` value); once it is not, it keeps
/// what it has already read (at most a few reads' worth), turns `autoRead` off, and goes on when
/// the registry tells it the pipeline is writable again.
public final class LineHandler: ChannelInboundHandler {
  public typealias InboundIn = ByteBuffer

  let pipeline: IngestPipeline
  let input: EventProducer<Reading>
  let registry: ConnectionRegistry
  let metrics: IngestMetrics
  let maxLineLength: Int
  private var context: ChannelHandlerContext?
  /// Read and not yet sent: the tail of a line, or what waits while the pipeline is not writable.
  private var pending: ByteBuffer?
  private var paused = false
  private var inputClosed = false
  private var stopped = false

  /// A handler sending into `pipeline`, closing the connection at a line over `maxLineLength` bytes.
  public init(pipeline: IngestPipeline, registry: ConnectionRegistry, metrics: IngestMetrics, maxLineLength: Int) {
    self.pipeline = pipeline
    self.input = pipeline.input
    self.registry = registry
    self.metrics = metrics
    self.maxLineLength = maxLineLength
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
    if !registry.isWritable { pauseReading() }
    context.fireChannelActive()
  }

  public func channelInactive(context: ChannelHandlerContext) {
    stopped = true
    pending = nil
    registry.unregister(context.channel)
    context.fireChannelInactive()
  }

  public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !stopped else { return }
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
      context.close(promise: nil)
    }
  }

  private enum Outcome { case needMore, notWritable, tooLong }

  /// Sends the full lines of `pending` while the pipeline is writable (all of them with `force`).
  private func drain(force: Bool) {
    guard !stopped else { return }
    var buffer = pending ?? ByteBuffer()
    pending = nil
    let input = self.input
    let registry = self.registry
    let limit = maxLineLength
    var sent = 0
    var malformed = 0
    let (consumed, outcome) = buffer.withUnsafeReadableBytes { raw -> (Int, Outcome) in
      var start = 0
      while start < raw.count {
        if !force && !(registry.isWritable && input.isWritable) { return (start, .notWritable) }
        guard let newline = LineParser.newline(in: raw, from: start) else {
          return (start, raw.count - start > limit ? .tooLong : .needMore)
        }
        if newline - start > limit { return (start, .tooLong) }
        if newline > start {  // an empty line is skipped silently
          if let reading = LineParser.parse(UnsafeRawBufferPointer(rebasing: raw[start..<newline])) {
            input.next(reading)
            sent += 1
          } else {
            malformed += 1
          }
        }
        start = newline + 1
      }
      return (start, .needMore)
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
      }
      if inputClosed {
        // A half line at the end is not a line: counted as malformed, not sent.
        if buffer.readableBytes > 0 { metrics.malformed.increment() }
        stopped = true
        pending = nil
        context?.close(promise: nil)
      }
    }
  }
}
