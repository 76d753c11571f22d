import IngestRules

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One parsed line of the protocol: `key value\n`.
public struct Reading: Sendable {
  /// The key: 1 to 64 printable ASCII bytes, no space.
  public var key: String
  /// The integer value.
  public var value: Int64
  /// With `--ack`: the line's token (`Acknowledgements`); 0 without.
  public var ack: UInt64 = 0
}

/// A lane's running aggregate of one key after a reading: the key's total and line count since the
/// server started (a key always goes to the same lane, so its lane sees every reading of it).
///
/// Kept small: every line goes through the merge and the batches stage as one of these, and each
/// extra word costs on that path (a refused reading is marked by `lines == 0`, not by a flag).
public struct KeyTotal: Sendable {
  /// The key.
  public var key: String
  /// The reading's own value (the naive store inserts one row per line with it).
  public var value: Int64
  /// The key's running total.
  public var total: Int64
  /// The key's running count of lines; 0 for a refused reading (an accepted one is at least 1).
  public var lines: Int64
  /// The reading's acknowledgement token (0: none).
  public var ack: UInt64 = 0

  /// The reading would have taken the key's total out of `Int64`: it is not in any total, and goes
  /// to the dead letters.
  public var refused: Bool { lines == 0 }
}

/// The running totals of the keys of one lane; used from that lane's queue only.
final class LaneTotals: @unchecked Sendable {
  private var totals: [String: CheckedSum] = [:]

  /// Adds the reading to its key's sum; a reading that would overflow the sum is refused (the sum
  /// stays as it was), never wrapped. One hash lookup for a key already seen.
  func add(_ reading: Reading) -> KeyTotal {
    let sum: CheckedSum
    let added: Bool
    if let index = totals.index(forKey: reading.key) {
      added = totals.values[index].add(reading.value)
      sum = totals.values[index]
    } else {
      var entry = CheckedSum()
      added = entry.add(reading.value)
      totals[reading.key] = entry
      sum = entry
    }
    return KeyTotal(
      key: reading.key,
      value: reading.value,
      total: sum.total,
      lines: added ? sum.lines : 0,
      ack: reading.ack
    )
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
