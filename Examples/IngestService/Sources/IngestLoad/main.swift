import Foundation

#if canImport(Glibc)
import Glibc
#endif

// ingest-load: opens K connections to ingest-server and sends N lines on each, as fast as TCP takes
// them, then half-closes each connection and waits for the server to close it (the server closes
// once it has accepted every line), and prints lines per second.
//
// With `--ack`, the server answers `ok <n>` once a connection's lines up to n are stored; a reader
// thread per connection keeps the last n, and at the end each connection's last n must be its line
// count (else the unacknowledged lines are printed per connection, and the exit status is 1). A
// connection the server cut (kill -9) stops sending and reports what it had acknowledged.
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
  var ack = false
}

func parseArguments() -> Config {
  var config = Config()
  var arguments = CommandLine.arguments.dropFirst()
  while let argument = arguments.popFirst() {
    if argument == "--ack" {
      config.ack = true
      continue
    }
    guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
    switch argument {
    case "--host": config.host = value
    case "--port": config.port = Int(value) ?? 0
    case "--connections": config.connections = Int(value) ?? 0
    case "--lines": config.linesPerConnection = Int(value) ?? -1
    case "--keys": config.keys = Int(value) ?? 0
    default:
      fail(
        "unknown option \(argument); usage: ingest-load [--host A] [--port P] [--connections K] [--lines N] [--keys M] [--ack]"
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

/// Writes every byte; `false` if the connection failed (fails the run unless `tolerant`).
@Sendable func writeAll(_ fd: Int32, _ bytes: [UInt8], tolerant: Bool = false) -> Bool {
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
    if written < 0 {
      if errno == EINTR { continue }
      if tolerant { return false }
      fail("write: errno \(errno) (the server closed the connection?)")
    }
    offset += written
  }
  return true
}

/// One connection's outcome with `--ack`: lines written into the socket, and the last `ok <n>`.
final class AckResult: @unchecked Sendable {
  var sent = 0
  var acked = 0
  var cut = false
}

/// Reads `ok <n>` lines until the server closes; keeps the last n.
func readAcks(_ fd: Int32, into result: AckResult) {
  var buffer = [UInt8](repeating: 0, count: 4096)
  var line: [UInt8] = []
  while true {
    let count = read(fd, &buffer, buffer.count)
    if count < 0 && errno == EINTR { continue }
    if count <= 0 { return }
    for byte in buffer[0..<count] {
      if byte == UInt8(ascii: "\n") {
        if line.starts(with: Array("ok ".utf8)), let n = Int(String(decoding: line.dropFirst(3), as: UTF8.self)) {
          result.acked = n
        }
        line.removeAll(keepingCapacity: true)
      } else {
        line.append(byte)
      }
    }
  }
}

/// Sends connection `index`'s lines, half-closes, waits for the server's close.
@Sendable func run(connection index: Int, _ config: Config, ack result: AckResult? = nil) {
  let fd = connectSocket(config)
  let reader = result.map { result in
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      readAcks(fd, into: result)
      done.signal()
    }
    return done
  }
  var chunk: [UInt8] = []
  var chunkLines = 0
  chunk.reserveCapacity(70_000)
  let first = index * config.linesPerConnection
  for g in first..<(first + config.linesPerConnection) {
    chunk.append(contentsOf: "k\(g % config.keys) \(g % 97 + 1)\n".utf8)
    chunkLines += 1
    if chunk.count >= 65_536 {
      guard writeAll(fd, chunk, tolerant: result != nil) else { break }
      result?.sent += chunkLines
      chunk.removeAll(keepingCapacity: true)
      chunkLines = 0
    }
  }
  if !chunk.isEmpty {
    if writeAll(fd, chunk, tolerant: result != nil) { result?.sent += chunkLines } else { result?.cut = true }
  }
  if result?.sent != config.linesPerConnection { result?.cut = true }
  shutdown(fd, Int32(SHUT_WR))
  if let reader {
    reader.wait()
    close(fd)
    return
  }
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
let results = (0..<config.connections).map { _ in config.ack ? AckResult() : nil }
for index in 0..<config.connections {
  done.enter()
  Thread.detachNewThread {
    run(connection: index, config, ack: results[index])
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
if config.ack {
  let acks = results.compactMap { $0 }
  for (index, result) in acks.enumerated() {
    print(
      "ingest-load: connection \(index): acknowledged \(result.acked) of \(result.sent) lines sent\(result.cut ? " (cut)" : "")"
    )
  }
  let acked = acks.reduce(0) { $0 + $1.acked }
  let sent = acks.reduce(0) { $0 + $1.sent }
  print("ingest-load: acknowledged \(acked) of \(sent) lines sent")
  if acked != total || sent != total { exit(1) }
}
