import Foundation

#if canImport(Glibc)
import Glibc
#endif

// ingest-load: opens K connections to ingest-server and sends N lines on each, as fast as TCP takes
// them, then half-closes each connection and waits for the server to close it (the server closes
// once it has accepted every line), and prints lines per second.
//
// The lines are predictable: over all connections, line g (connection c's line i is g = c * N + i)
// is `k<g % keys> <g % 97 + 1>`, so a checker computes the totals on its own.

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("ingest-load: \(message)\n".utf8))
  exit(2)
}

/// The command line.
struct Config: Sendable {
  var host = "127.0.0.1"
  var port = 9400
  var connections = 8
  var linesPerConnection = 250_000
  var keys = 1000
}

func parseArguments() -> Config {
  var config = Config()
  var arguments = CommandLine.arguments.dropFirst()
  while let argument = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
    switch argument {
    case "--host": config.host = value
    case "--port": config.port = Int(value) ?? 0
    case "--connections": config.connections = Int(value) ?? 0
    case "--lines": config.linesPerConnection = Int(value) ?? -1
    case "--keys": config.keys = Int(value) ?? 0
    default:
      fail(
        "unknown option \(argument); usage: ingest-load [--host A] [--port P] [--connections K] [--lines N] [--keys M]"
      )
    }
  }
  guard config.port > 0, config.connections > 0, config.linesPerConnection >= 0, config.keys > 0 else {
    fail("bad arguments")
  }
  return config
}

/// Connects to the server; a blocking socket (this is a load client: a thread per connection).
@Sendable func connectSocket(_ config: Config) -> Int32 {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { fail("socket: \(errno)") }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(config.port).bigEndian)
  guard inet_pton(AF_INET, config.host, &address.sin_addr) == 1 else { fail("bad host \(config.host)") }
  let result = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  guard result == 0 else { fail("connect to \(config.host):\(config.port): errno \(errno)") }
  return fd
}

@Sendable func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
    if written < 0 {
      if errno == EINTR { continue }
      fail("write: errno \(errno) (the server closed the connection?)")
    }
    offset += written
  }
}

/// Sends connection `index`'s lines, half-closes, waits for the server's close.
@Sendable func run(connection index: Int, _ config: Config) {
  let fd = connectSocket(config)
  var chunk: [UInt8] = []
  chunk.reserveCapacity(70_000)
  let first = index * config.linesPerConnection
  for g in first..<(first + config.linesPerConnection) {
    chunk.append(contentsOf: "k\(g % config.keys) \(g % 97 + 1)\n".utf8)
    if chunk.count >= 65_536 {
      writeAll(fd, chunk)
      chunk.removeAll(keepingCapacity: true)
    }
  }
  writeAll(fd, chunk)
  shutdown(fd, Int32(SHUT_WR))
  var sink = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = read(fd, &sink, sink.count)
    if count > 0 { continue }
    if count < 0 && errno == EINTR { continue }
    break
  }
  close(fd)
}

let config = parseArguments()
let start = Date()
let done = DispatchGroup()
for index in 0..<config.connections {
  done.enter()
  Thread.detachNewThread {
    run(connection: index, config)
    done.leave()
  }
}
done.wait()
let seconds = Date().timeIntervalSince(start)
let total = config.connections * config.linesPerConnection
print(
  "ingest-load: \(total) lines over \(config.connections) connections accepted in \(String(format: "%.2f", seconds)) s: "
    + "\(Int(Double(total) / max(seconds, 1e-9))) lines/s"
)
