import IngestRules

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One parsed line of the protocol: `key value\n`.
///
/// No acknowledgement token: without `--ack`, every line waits in the input producer and the lanes
/// as one of these, and a token would make each a third larger (24 bytes, not 32); with `--ack`,
/// the lines travel as ``AcknowledgedReading``.
public struct Reading: IngestLine {
  /// The key: 1 to 64 printable ASCII bytes, no space.
  public var key: String
  /// The integer value.
  public var value: Int64

  /// A reading.
  public init(key: String, value: Int64) {
    self.key = key
    self.value = value
  }

  /// Always 0: a reading carries no token.
  public var ack: UInt64 { 0 }

  /// The reading itself (the token is dropped: nothing is acknowledged).
  public init(_ reading: Reading, ack: UInt64) { self = reading }
}

/// With `--ack`: a reading and its acknowledgement token (`Acknowledgements`).
public struct AcknowledgedReading: IngestLine {
  /// The key.
  public var key: String
  /// The integer value.
  public var value: Int64
  /// The line's token: its connection's slot and its number on the connection.
  public var ack: UInt64

  /// The reading with its token.
  public init(_ reading: Reading, ack: UInt64) {
    key = reading.key
    value = reading.value
    self.ack = ack
  }
}

/// What the pipeline's input carries: ``Reading``, or ``AcknowledgedReading`` with `--ack`.
public protocol IngestLine: Sendable {
  /// The key.
  var key: String { get }
  /// The integer value.
  var value: Int64 { get }
  /// The acknowledgement token (0: none).
  var ack: UInt64 { get }
  /// `reading` with the token `ack` (kept only by a type that carries one).
  init(_ reading: Reading, ack: UInt64)
}

/// A reading after its lane's checked sum: accepted into its key's running total, or refused.
///
/// Kept as small as before the fault handling (40 bytes): every line goes through the merge and
/// the batches stage as one of these, and waits there when they are behind, so each extra word is
/// memory at the peak as well as time. It carries the reading's value, not the key's running total:
/// the writer sums a batch's values per key into its deltas (the same deltas as the difference of
/// running totals), so the totals need not travel.
public struct CheckedReading: Sendable {
  /// The key.
  public var key: String
  /// The reading's value.
  public var value: Int64
  /// The reading's acknowledgement token (0: none).
  public var ack: UInt64 = 0
  /// The reading would have taken the key's running total out of `Int64`: it is not in any total,
  /// and goes to the dead letters.
  public var refused: Bool = false

  /// A checked reading.
  public init(key: String, value: Int64, ack: UInt64 = 0, refused: Bool = false) {
    self.key = key
    self.value = value
    self.ack = ack
    self.refused = refused
  }
}

/// The running totals of the keys of one lane; used from that lane's queue only.
final class LaneTotals: @unchecked Sendable {
  private var totals: [String: CheckedSum] = [:]

  /// Adds the reading to its key's sum; a reading that would overflow the sum is refused (the sum
  /// stays as it was), never wrapped. One hash lookup for a key already seen.
  func add<Line: IngestLine>(_ line: Line) -> CheckedReading {
    let added: Bool
    if let index = totals.index(forKey: line.key) {
      added = totals.values[index].add(line.value)
    } else {
      var entry = CheckedSum()
      added = entry.add(line.value)
      totals[line.key] = entry
    }
    return CheckedReading(key: line.key, value: line.value, ack: line.ack, refused: !added)
  }
}

/// The line protocol's parser.
public enum LineParser {
  /// The longest key accepted.
  public static let maxKeyLength = 64

  /// Parses `key value` (a trailing `\r` allowed); `nil` for anything else: no space, an empty or
  /// over-long key, a key byte outside printable ASCII, a value that is not a decimal integer in
  /// `ValueRange` (at most 999,999,999,999,999,999 in magnitude; parsed with overflow checks).
  public static func parse(_ line: UnsafeRawBufferPointer) -> Reading? {
    var end = line.count
    if end > 0 && line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
    var space = 0
    while space < end && line[space] != UInt8(ascii: " ") {
      let byte = line[space]
      guard byte > 0x20 && byte < 0x7F else { return nil }
      space += 1
    }
    guard space > 0, space <= maxKeyLength, space < end else { return nil }
    guard let value = ValueRange.parse(UnsafeRawBufferPointer(rebasing: line[(space + 1)..<end])) else { return nil }
    let key = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<space]), as: UTF8.self)
    return Reading(key: key, value: value)
  }

  /// The offset of the first `\n` in `bytes` from `start`, or `nil`.
  static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard start < bytes.count, let base = bytes.baseAddress else { return nil }
    guard let found = memchr(base + start, 0x0A, bytes.count - start) else { return nil }
    return UnsafeRawPointer(found) - base
  }
}
