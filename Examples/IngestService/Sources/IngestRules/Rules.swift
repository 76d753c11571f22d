// The ingest service's rules that need no I/O: the value range and its checked parse, the checked
// per-key sums, the classification of store errors, the retry backoff and the batch ids. A target
// of its own with no dependency, so that its tests build in seconds.

/// The values a line may carry, and their checked parse.
public enum ValueRange {
  /// The largest magnitude of a value: 18 decimal digits. A key's running total is an `Int64`
  /// (PostgreSQL's `bigint`), so at least 9 such lines fit in any key's total.
  public static let maxMagnitude: Int64 = 999_999_999_999_999_999

  /// The decimal integer in `digits` (ASCII, an optional leading `-`), or `nil` when it is empty, has
  /// a byte other than a digit, or lies outside `-maxMagnitude...maxMagnitude`. Every step is
  /// overflow-checked: no digit count can wrap.
  @inlinable
  public static func parse(_ digits: UnsafeRawBufferPointer) -> Int64? {
    var index = 0
    var negative = false
    if index < digits.count && digits[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    guard index < digits.count else { return nil }
    var value: Int64 = 0
    while index < digits.count {
      let digit = digits[index] &- UInt8(ascii: "0")
      guard digit <= 9 else { return nil }
      let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (next, overflow2) = times10.addingReportingOverflow(Int64(digit))
      guard !overflow1, !overflow2, next <= maxMagnitude else { return nil }
      value = next
      index += 1
    }
    return negative ? -value : value
  }
}

/// A key's running total and line count, added with overflow checks.
public struct CheckedSum: Sendable, Equatable {
  /// The total.
  public var total: Int64
  /// The line count.
  public var lines: Int64

  /// A sum.
  public init(total: Int64 = 0, lines: Int64 = 0) {
    self.total = total
    self.lines = lines
  }

  /// Adds `value` as one more line; `false` (and the sum unchanged) when the total would leave
  /// `Int64`: the line is then refused, never wrapped into the total.
  @inlinable
  public mutating func add(_ value: Int64) -> Bool {
    let (total, overflow) = self.total.addingReportingOverflow(value)
    guard !overflow, lines < Int64.max else { return false }
    self.total = total
    lines += 1
    return true
  }
}

/// What to do after a store's error.
public enum StoreErrorClass: Sendable, Equatable {
  /// The same write may succeed later (connection lost, timeout, serialization failure, the server
  /// shutting down, out of resources, or a cause the service cannot judge): retry, with backoff.
  case retryable
  /// The data itself is refused (SQLSTATE class 22, data exception, or 23, integrity constraint
  /// violation): the same write fails every time; the offending keys go to the dead letters.
  case data

  /// The class of a PostgreSQL SQLSTATE: `22xxx` and `23xxx` are data errors; everything else
  /// (`08` connection, `40` transaction rollback, `53` resources, `57` operator intervention such as
  /// `57P01` and `57014` statement timeout, `58` system, and errors such as a missing table that an
  /// operator may fix) is retried.
  public init(sqlState: String) {
    self = sqlState.hasPrefix("22") || sqlState.hasPrefix("23") ? .data : .retryable
  }
}

/// Capped exponential backoff: `initial`, doubled after each failure, at most `maximum`.
public struct Backoff: Sendable, Equatable {
  /// The first delay.
  public var initial: Duration
  /// The largest delay.
  public var maximum: Duration
  /// Failures in a row so far.
  public private(set) var failures = 0

  /// A backoff from `initial` (100 ms) doubling up to `maximum` (5 s).
  public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5)) {
    self.initial = initial
    self.maximum = maximum
  }

  /// The delay before the next attempt, after one more failure.
  public mutating func next() -> Duration {
    let doublings = min(failures, 30)
    failures += 1
    let delay = initial * (1 << doublings)
    return delay < maximum ? delay : maximum
  }

  /// A success: the next failure starts from `initial` again.
  public mutating func reset() { failures = 0 }
}

/// The id of one write: the writer (one per server process) and the write's sequence number. The
/// store records it in the same transaction as the totals and applies a write whose id it already
/// holds as a no-op, so a retry after a lost commit reply adds nothing.
public struct BatchID: Sendable, Hashable, CustomStringConvertible {
  /// The writer: random per server process.
  public var writer: String
  /// The write's number, from 1, never reused by this writer.
  public var sequence: Int64

  /// An id.
  public init(writer: String, sequence: Int64) {
    self.writer = writer
    self.sequence = sequence
  }

  public var description: String { "\(writer)/\(sequence)" }
}

/// Hands out the batch ids of one writer: each write (a batch, or a part of a batch split around a
/// refused key) takes a new one; its retries keep it.
public struct BatchSequence: Sendable {
  /// The writer.
  public let writer: String
  private var last: Int64 = 0

  /// The ids of `writer`.
  public init(writer: String) { self.writer = writer }

  /// The next id.
  public mutating func next() -> BatchID {
    last += 1
    return BatchID(writer: writer, sequence: last)
  }
}

/// Writer ids: 16 random hexadecimal digits.
public func makeWriterID() -> String {
  var generator = SystemRandomNumberGenerator()
  let value = generator.next() as UInt64
  let hex = String(value, radix: 16)
  return String(repeating: "0", count: 16 - hex.count) + hex
}
