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
  /// PostgreSQL's user.
  public var pgUser = "postgres"
  /// PostgreSQL's password: `--pg-password`, else the `PGPASSWORD` environment variable, else none
  /// (trust authentication).
  public var pgPassword: String? = nil
  /// Whether the connection to PostgreSQL uses TLS.
  public var pgTLS = PostgresTLSMode.disable
  /// PostgreSQL's database.
  public var pgDatabase = "postgres"
  /// The longest a graceful shutdown may take, in seconds; past it the server logs what it accepted
  /// and did not store, and exits with status 3.
  public var shutdownTimeoutSeconds = 30
  /// A client connection that sends nothing for this many seconds is closed.
  public var idleTimeoutSeconds = 60
  /// A client connection whose unfinished line does not end within this many seconds is closed.
  public var readTimeoutSeconds = 10
  /// A PostgreSQL statement (with the wait for a connection) not answered within this many seconds
  /// fails and is retried.
  public var pgQueryTimeoutSeconds = 10
  /// Answer `ok <n>` on each connection once its lines up to `n` are stored.
  public var ack = false
  /// Empty the table at start.
  public var reset = false
  /// `--jetstream URL`: the gateway: every accepted line is published to JetStream's stream
  /// `INGEST` (subject `ingest.<lane>`) instead of a store; workers (`ingest-worker`) apply them.
  public var jetstream: String? = nil
  /// `--help`: print the usage and exit.
  public var help = false

  /// The defaults.
  public init() {}

  /// Parses `arguments` (without the program's name); `nil` and a message on a bad one.
  /// `environment` supplies `PGPASSWORD` when `--pg-password` is not given.
  public static func parse(
    _ arguments: [String],
    environment: [String: String] = [:]
  ) -> Result<Options, OptionsError> {
    var options = Options()
    options.pgPassword = environment["PGPASSWORD"]
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
        case "--pg-password": options.pgPassword = try text(argument)
        case "--pg-tls":
          let value = try text(argument)
          guard let mode = PostgresTLSMode(rawValue: value) else {
            throw OptionsError(message: "--pg-tls needs disable, prefer or require (not \(value))")
          }
          options.pgTLS = mode
        case "--shutdown-timeout": options.shutdownTimeoutSeconds = try int(argument)
        case "--idle-timeout": options.idleTimeoutSeconds = max(1, try int(argument))
        case "--read-timeout": options.readTimeoutSeconds = max(1, try int(argument))
        case "--pg-query-timeout": options.pgQueryTimeoutSeconds = max(1, try int(argument))
        case "--ack": options.ack = true
        case "--reset": options.reset = true
        case "--jetstream": options.jetstream = try text(argument)
        case "--help", "-h": options.help = true
        default: throw OptionsError(message: "unknown option \(argument)")
        }
      }
    } catch {
      return .failure(error)
    }
    return .success(options)
  }

  /// The usage text, with the defaults.
  public static let usage = """
    usage: ingest-server [options]

      --port P              the line protocol's TCP port (9400)
      --http-port P         HTTP: GET /metrics, GET /totals (9401)
      --host A              the address both listen on (127.0.0.1)
      --memory              an in-memory store instead of PostgreSQL
      --naive               one statement per line instead of one upsert per batch (for comparison)
      --batch-delay-ms N    a delay per batch, in milliseconds: a slow sink (0)
      --max-line N          a longer line closes its connection (256)
      --max-connections N   connections beyond this many are refused (64)
      --lanes N             the partition's lanes (4)
      --lane-buffer N       each lane's bufferLimit (4096)
      --batch-max N         at most this many lines per batch (4096)
      --batch-buffer N      the batches stage's bufferLimit (16384)
      --pg-host H           PostgreSQL's host (127.0.0.1)
      --pg-port P           PostgreSQL's port (5432)
      --pg-user U           PostgreSQL's user (postgres)
      --pg-password W       PostgreSQL's password (default: $PGPASSWORD, else none: trust authentication)
      --pg-database D       PostgreSQL's database (postgres)
      --pg-tls MODE         disable | prefer | require: TLS to PostgreSQL, certificates verified
                            against the system's trust roots (disable)
      --pg-query-timeout S  a statement not answered in S seconds fails and is retried (10)
      --idle-timeout S      a client connection that sends nothing for S seconds is closed (60)
      --read-timeout S      a client connection whose line does not end within S seconds is closed (10)
      --shutdown-timeout S  past S seconds after SIGTERM, log what is not stored and exit 3 (30)
      --ack                 answer "ok <n>" on a connection once its lines up to n are stored
                            (not with --jetstream: a gateway stores nothing itself)
      --reset               empty the tables at start
      --jetstream URL       the gateway: publish every accepted line to JetStream (stream INGEST,
                            subject ingest.<lane>) at URL (nats://127.0.0.1:4222) instead of a store
      --help, -h            print this and exit
    """
}

/// How the connection to PostgreSQL uses TLS (`--pg-tls`).
public enum PostgresTLSMode: String, Sendable {
  /// No TLS.
  case disable
  /// TLS if the server offers it, else plain.
  case prefer
  /// TLS or no connection.
  case require
}

/// A bad command line.
public struct OptionsError: Error, Sendable {
  /// What was wrong.
  public var message: String
}
