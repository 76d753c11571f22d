import NIOCore
import Synchronization

/// `--ack`: tells each connection which of its lines are stored. A line sent with an acknowledgement
/// carries a token (its connection's slot in the high 24 bits, its number on the connection, from
/// 1, in the low 40); the writer hands the tokens of every batch it has stored (or dead-lettered)
/// to `stored(_:)`, which groups them by connection and passes each group to its connection on its
/// event loop. The connection answers `ok <n>` once every line up to `n` is stored.
public final class Acknowledgements: Sendable {
  static let lineBits: UInt64 = 40
  static let lineMask: UInt64 = (1 << lineBits) - 1

  struct State {
    var nextSlot: UInt64 = 1
    var connections: [UInt64: NIOLoopBound<LineHandler>] = [:]
  }

  private let state = Mutex(State())

  /// No connection yet.
  public init() {}

  /// A slot for a connection (its tokens' high bits).
  func register(_ handler: NIOLoopBound<LineHandler>) -> UInt64 {
    state.withLock { state in
      let slot = state.nextSlot
      state.nextSlot = state.nextSlot == (1 << (64 - Self.lineBits)) - 1 ? 1 : state.nextSlot + 1
      state.connections[slot] = handler
      return slot
    }
  }

  func unregister(_ slot: UInt64) {
    _ = state.withLock { $0.connections.removeValue(forKey: slot) }
  }

  /// The token of line `line` of the connection in `slot`.
  static func token(slot: UInt64, line: UInt64) -> UInt64 { slot << lineBits | line }

  /// The lines of these tokens are stored: each connection hears of its own, on its event loop
  /// (decided under the lock, scheduled after it).
  public func stored(_ tokens: [UInt64]) {
    var bySlot: [UInt64: [UInt64]] = [:]
    for token in tokens where token != 0 { bySlot[token >> Self.lineBits, default: []].append(token & Self.lineMask) }
    guard !bySlot.isEmpty else { return }
    let targets = state.withLock { state in
      bySlot.compactMap { slot, lines in state.connections[slot].map { ($0, lines) } }
    }
    for (handler, lines) in targets {
      handler.eventLoop.execute { handler.value.stored(lines) }
    }
  }
}

/// A connection's acknowledged prefix: the lines stored out of order wait in `ahead` until every
/// line before them is stored.
struct AckState {
  /// Lines sent into the pipeline.
  var sent: UInt64 = 0
  /// Every line up to this one is stored.
  var prefix: UInt64 = 0
  var ahead: Set<UInt64> = []

  /// Adds stored lines; `true` when the prefix moved.
  mutating func stored(_ lines: [UInt64]) -> Bool {
    let before = prefix
    for line in lines where line > prefix { ahead.insert(line) }
    while ahead.remove(prefix + 1) != nil { prefix += 1 }
    return prefix != before
  }
}
