import IngestRules
import Testing

func parse(_ text: String) -> Int64? {
  Array(text.utf8).withUnsafeBytes { ValueRange.parse($0) }
}

@Test func valuesInRangeParse() {
  #expect(parse("0") == 0)
  #expect(parse("42") == 42)
  #expect(parse("-7") == -7)
  #expect(parse("999999999999999999") == ValueRange.maxMagnitude)
  #expect(parse("-999999999999999999") == -ValueRange.maxMagnitude)
  #expect(parse("000000000000000000000000001") == 1)  // leading zeros cannot overflow
}

@Test func valuesOutOfRangeOrMalformedAreRefused() {
  #expect(parse("1000000000000000000") == nil)
  #expect(parse("9223372036854775807") == nil)
  #expect(parse("9223372036854775808") == nil)  // would wrap Int64
  #expect(parse("99999999999999999999999999") == nil)
  #expect(parse("") == nil)
  #expect(parse("-") == nil)
  #expect(parse("5x") == nil)
  #expect(parse("+5") == nil)
}

@Test func sumsRefuseInsteadOfWrapping() {
  var sum = CheckedSum()
  var refused = 0
  for _ in 0..<10 where !sum.add(ValueRange.maxMagnitude) { refused += 1 }
  #expect(refused == 1)  // 9 fit in Int64, the 10th does not
  #expect(sum == CheckedSum(total: 9 * ValueRange.maxMagnitude, lines: 9))
  let added = sum.add(-ValueRange.maxMagnitude)
  #expect(added)
  #expect(sum.lines == 10)
  var low = CheckedSum(total: Int64.min + 1, lines: 1)
  let addedLow = low.add(-2)
  #expect(!addedLow)
  #expect(low.total == Int64.min + 1)
}

@Test func sqlStatesAreClassified() {
  #expect(StoreErrorClass(sqlState: "22003") == .data)  // numeric_value_out_of_range
  #expect(StoreErrorClass(sqlState: "22P02") == .data)
  #expect(StoreErrorClass(sqlState: "23505") == .data)
  #expect(StoreErrorClass(sqlState: "40001") == .retryable)  // serialization_failure
  #expect(StoreErrorClass(sqlState: "40P01") == .retryable)  // deadlock
  #expect(StoreErrorClass(sqlState: "57P01") == .retryable)  // admin_shutdown
  #expect(StoreErrorClass(sqlState: "57014") == .retryable)  // query_canceled (statement_timeout)
  #expect(StoreErrorClass(sqlState: "08006") == .retryable)
  #expect(StoreErrorClass(sqlState: "53300") == .retryable)
  #expect(StoreErrorClass(sqlState: "42P01") == .retryable)  // undefined table: an operator may fix it
}

@Test func backoffDoublesUpToItsCapAndResets() {
  var backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
  let delays = (0..<6).map { _ in backoff.next() }
  #expect(
    delays == [
      .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1),
    ]
  )
  for _ in 0..<100 { _ = backoff.next() }
  #expect(backoff.next() == .seconds(1))
  backoff.reset()
  #expect(backoff.next() == .milliseconds(100))
}

@Test func batchIDsAreNeverReused() {
  var sequence = BatchSequence(writer: "w1")
  let ids = (0..<1000).map { _ in sequence.next() }
  #expect(Set(ids).count == 1000)
  #expect(ids.first == BatchID(writer: "w1", sequence: 1))
  #expect(ids.last?.description == "w1/1000")
  let a = makeWriterID()
  let b = makeWriterID()
  #expect(a.count == 16 && b.count == 16 && a != b)
}
