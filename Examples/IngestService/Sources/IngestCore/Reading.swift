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
}

/// A lane's running aggregate of one key after a reading: the key's total and line count since the
/// server started (a key always goes to the same lane, so its lane sees every reading of it).
public struct KeyTotal: Sendable {
  /// The key.
  public var key: String
  /// The reading's own value (the naive store inserts one row per line with it).
  public var value: Int64
  /// The key's running total.
  public var total: Int64
  /// The key's running count of lines.
  public var lines: Int64
}

/// The running totals of the keys of one lane; used from that lane's queue only.
final class LaneTotals: @unchecked Sendable {
  private var totals: [String: (total: Int64, lines: Int64)] = [:]

  func add(_ reading: Reading) -> KeyTotal {
    var entry = totals[reading.key, default: (0, 0)]
    entry.total &+= reading.value
    entry.lines &+= 1
    totals[reading.key] = entry
    return KeyTotal(key: reading.key, value: reading.value, total: entry.total, lines: entry.lines)
  }
}

/// The line protocol's parser.
public enum LineParser {
  /// The longest key accepted.
  public static let maxKeyLength = 64

  /// Parses `key value` (a trailing `\r` allowed); `nil` for anything else: no space, an empty or
  /// over-long key, a key byte outside printable ASCII, a value that is not a decimal integer of
  /// at most 18 digits.
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
    var index = space + 1
    var negative = false
    if index < end && line[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    let digits = end - index
    guard digits >= 1, digits <= 18 else { return nil }
    var value: Int64 = 0
    while index < end {
      let digit = line[index] &- UInt8(ascii: "0")
      guard digit <= 9 else { return nil }
      value = value * 10 + Int64(digit)
      index += 1
    }
    let key = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<space]), as: UTF8.self)
    return Reading(key: key, value: negative ? -value : value)
  }

  /// The offset of the first `\n` in `bytes` from `start`, or `nil`.
  static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard start < bytes.count, let base = bytes.baseAddress else { return nil }
    guard let found = memchr(base + start, 0x0A, bytes.count - start) else { return nil }
    return UnsafeRawPointer(found) - base
  }
}
