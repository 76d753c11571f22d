/// The server's command line.
public struct Options: Sendable {
  /// The line protocol's port.
  public var port = 9400
  /// The HTTP port (`/metrics`, `/totals`).
  public var httpPort = 9401
  /// The address both listen on.
  public var host = "127.0.0.1"
  /// Use the in-memory store instead of PostgreSQL.
  public var memory = false
  /// One statement per line (the naive sink, for comparison).
  public var naive = false
  /// A delay per batch, in milliseconds (a slow consumer).
  public var batchDelayMilliseconds = 0
  /// The longest line accepted; a longer one closes its connection.
  public var maxLineLength = 256
  /// Connections beyond this many are refused.
  public var maxConnections = 64
  /// The partition's lanes and each lane's buffer.
  public var lanes = 4
  /// Each lane's `bufferLimit`.
  public var laneBuffer = 4096
  /// At most this many lines per batch.
  public var batchMax = 4096
  /// The batches stage's `bufferLimit`.
  public var batchBuffer = 16384
  /// PostgreSQL: host, port, user, database.
  public var pgHost = "127.0.0.1"
  /// PostgreSQL's port.
  public var pgPort = 5432
  /// PostgreSQL's user (trust or no password).
  public var pgUser = "postgres"
  /// PostgreSQL's database.
  public var pgDatabase = "postgres"
  /// Empty the table at start.
  public var reset = false

  /// The defaults.
  public init() {}

  /// Parses `arguments` (without the program's name); `nil` and a message on a bad one.
  public static func parse(_ arguments: [String]) -> Result<Options, OptionsError> {
    var options = Options()
    var rest = arguments[...]
    func int(_ name: String) throws(OptionsError) -> Int {
      guard let text = rest.popFirst(), let value = Int(text), value >= 0 else {
        throw OptionsError(message: "\(name) needs a whole number")
      }
      return value
    }
    func text(_ name: String) throws(OptionsError) -> String {
      guard let value = rest.popFirst() else { throw OptionsError(message: "\(name) needs a value") }
      return value
    }
    do throws(OptionsError) {
      while let argument = rest.popFirst() {
        switch argument {
        case "--port": options.port = try int(argument)
        case "--http-port": options.httpPort = try int(argument)
        case "--host": options.host = try text(argument)
        case "--memory": options.memory = true
        case "--naive": options.naive = true
        case "--batch-delay-ms": options.batchDelayMilliseconds = try int(argument)
        case "--max-line": options.maxLineLength = try int(argument)
        case "--max-connections": options.maxConnections = try int(argument)
        case "--lanes": options.lanes = max(1, try int(argument))
        case "--lane-buffer": options.laneBuffer = max(1, try int(argument))
        case "--batch-max": options.batchMax = max(1, try int(argument))
        case "--batch-buffer": options.batchBuffer = max(1, try int(argument))
        case "--pg-host": options.pgHost = try text(argument)
        case "--pg-port": options.pgPort = try int(argument)
        case "--pg-user": options.pgUser = try text(argument)
        case "--pg-database": options.pgDatabase = try text(argument)
        case "--reset": options.reset = true
        default: throw OptionsError(message: "unknown option \(argument)")
        }
      }
    } catch {
      return .failure(error)
    }
    return .success(options)
  }

  /// The usage line.
  public static let usage = """
    usage: ingest-server [--port P] [--http-port P] [--host A] [--memory] [--naive] [--batch-delay-ms N]
                         [--max-line N] [--max-connections N] [--lanes N] [--lane-buffer N] [--batch-max N]
                         [--batch-buffer N] [--pg-host H] [--pg-port P] [--pg-user U] [--pg-database D] [--reset]
    """
}

/// A bad command line.
public struct OptionsError: Error, Sendable {
  /// What was wrong.
  public var message: String
}
