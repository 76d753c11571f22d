import NIOCore
import NIOHTTP1

/// The HTTP endpoints: `GET /metrics` (Prometheus text) and `GET /totals` (JSON from the store).
/// Each response is made by an async closure and written back on the channel; the connection closes
/// after it.
public final class HTTPHandler: ChannelInboundHandler {
  public typealias InboundIn = HTTPServerRequestPart
  public typealias OutboundOut = HTTPServerResponsePart

  /// A response: status, content type and body.
  public typealias Response = (status: HTTPResponseStatus, contentType: String, body: String)

  let route: @Sendable (HTTPMethod, String) async -> Response
  private var request: (HTTPMethod, String)?

  /// A handler answering with `route(method, uri)`.
  public init(route: @escaping @Sendable (HTTPMethod, String) async -> Response) {
    self.route = route
  }

  public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      request = (head.method, head.uri)
    case .body:
      break
    case .end:
      guard let (method, uri) = request else { return }
      request = nil
      let channel = context.channel
      let route = self.route
      Task {
        let response = await route(method, uri)
        var head = HTTPResponseHead(version: .http1_1, status: response.status)
        var body = channel.allocator.buffer(capacity: response.body.utf8.count)
        body.writeString(response.body)
        head.headers.add(name: "Content-Type", value: response.contentType)
        head.headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        head.headers.add(name: "Connection", value: "close")
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in
          channel.close(promise: nil)
        }
      }
    }
  }
}
