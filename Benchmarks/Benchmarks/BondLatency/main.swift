// S7 latency (perf/latency): the time from `next` on one thread to the observer on a serial
// DispatchQueue, at a fixed offered rate, recorded in an HdrHistogram, for Bond `deliverOn` (on a
// DispatchQueue, and on a DedicatedThreadScheduler with each wait strategy), Bond `batches` (each
// event of an array counts from its own `next`), OpenCombine `receive(on:)` and a bare
// `DispatchQueue.async` per event.
//
//   BondLatency [--events N] [--rate EVENTS_PER_SECOND] [--pin] [--only TEXT] [--json FILE] [--csv FILE]
//     (--only A,B: only the engines whose name contains A or B, e.g. `--only busySpin,DispatchQueue.async`)
//   BondLatency S21 [--cycles N] [--seconds S] [--json FILE] [--csv FILE]   (ObserveUnderFlood.swift)
//   BondLatency tail [--events N] [--rate R] [--rounds K]   where the tail comes from (Tail.swift)
//
// The sender busy-waits to each event's slot (event i at start + i / rate), stamps the event with
// the monotonic clock and sends it; the observer records now - stamp. A warm-up of 50,000 events
// (not recorded) runs first for each engine. Percentiles in microseconds.
import Bond
import Dispatch
import Foundation
import Histogram
import OpenCombine
import OpenCombineDispatch

struct Options {
  /// "S7" (the default) or "S21".
  var scenario = "S7"
  var events = 1_000_000
  var rate = 1_000_000
  /// S21: cycles per engine, and the flood's length that bounds them.
  var cycles = 1_000_000
  var seconds = 2.0
  /// `tail`: rounds of the alternating engines.
  var rounds = 10
  /// `--pin`: the sender on CPU 0, the delivering threads on CPU 1 (Tail.swift).
  var pin = false
  /// `--only`: only the S7 engines whose name contains one of these (comma-separated).
  var only: [String]?
  var json: String?
  var csv: String?

  init(_ arguments: [String]) {
    var rest = arguments.dropFirst()
    while let argument = rest.popFirst() {
      switch argument {
      case "--events": events = Int(rest.popFirst() ?? "") ?? events
      case "--rate": rate = Int(rest.popFirst() ?? "") ?? rate
      case "--cycles": cycles = Int(rest.popFirst() ?? "") ?? cycles
      case "--seconds": seconds = Double(rest.popFirst() ?? "") ?? seconds
      case "--rounds": rounds = Int(rest.popFirst() ?? "") ?? rounds
      case "--pin": pin = true
      case "--only": only = rest.popFirst().map { $0.split(separator: ",").map(String.init) }
      case "S7", "S21", "tail": scenario = argument
      case "--json": json = rest.popFirst()
      case "--csv": csv = rest.popFirst()
      default:
        FileHandle.standardError.write("BondLatency: unknown argument \(argument)\n".data(using: .utf8)!)
        exit(2)
      }
    }
  }
}

@inline(__always) func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// The observer's side: one histogram, touched only by the serial delivery queue; `done` is
/// signalled when `expected` events have been recorded.
final class Recorder: @unchecked Sendable {
  var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
  var recorded = 0
  var expected = 0
  var recording = false
  /// `BondLatency tail`: the events later than `lateAfter` ns (their stamp and latency), in
  /// delivery order; `UInt64.max` (the default) keeps none.
  var lateAfter = UInt64.max
  var late: [(stamp: UInt64, latency: UInt64)] = []
  let done = DispatchSemaphore(value: 0)
  /// `--pin`: moves each delivering thread to CPU 1 on its first event.
  let pinned: PinnedThreadFlag?

  init(pin: Bool) { pinned = pin ? PinnedThreadFlag() : nil }

  @inline(__always)
  func receive(_ stamp: UInt64, at time: UInt64) {
    pinned?.pinOnce()
    if recording {
      let latency = time &- stamp
      histogram.record(latency)
      if latency > lateAfter { late.append((stamp, latency)) }
    }
    recorded += 1
    if recorded == expected { done.signal() }
  }

  @inline(__always)
  func receive(_ stamp: UInt64) { receive(stamp, at: now()) }

  func receive(batch: [UInt64]) {
    let time = now()
    for stamp in batch { receive(stamp, at: time) }
  }
}

/// Sends `count` stamped events at `rate` per second through `send`, then waits for the recorder.
func run(_ recorder: Recorder, count: Int, rate: Int, recording: Bool, _ send: (UInt64) -> Void) {
  recorder.recorded = 0
  recorder.expected = count
  recorder.recording = recording
  let period = 1e9 / Double(rate)
  let start = now()
  for i in 0..<count {
    let slot = start &+ UInt64(Double(i) * period)
    while now() < slot {}
    send(now())
  }
  recorder.done.wait()
}

/// One engine: warm up, then measure; returns the histogram.
func measure(_ options: Options, _ setUp: (Recorder) -> ((UInt64) -> Void, () -> Void)) -> Histogram<UInt64> {
  let recorder = Recorder(pin: options.pin)
  let (send, tearDown) = setUp(recorder)
  run(recorder, count: 50_000, rate: options.rate, recording: false, send)
  run(recorder, count: options.events, rate: options.rate, recording: true, send)
  tearDown()
  return recorder.histogram
}

func fmt(_ value: Double) -> String {
  value >= 100
    ? String(format: "%.0f", value) : value >= 10 ? String(format: "%.1f", value) : String(format: "%.2f", value)
}

/// Bond `deliverOn` on a `DedicatedThreadScheduler` with `strategy` (its thread stops when the
/// engine is torn down and the scheduler released).
func dedicated(
  _ name: String,
  _ strategy: DedicatedThreadScheduler.WaitStrategy
) -> (String, (Recorder) -> ((UInt64) -> Void, () -> Void)) {
  (
    "Bond deliverOn, DedicatedThreadScheduler \(name)",
    { recorder in
      let producer = EventProducer<UInt64>()
      let observation = producer.deliverOn(DedicatedThreadScheduler(waitStrategy: strategy)).observe {
        recorder.receive($0)
      }
      return ({ producer.next($0) }, { observation.dispose() })
    }
  )
}

/// An engine of the S7 table: its name, and how to set it up on a recorder (returns the send and the
/// tear-down).
typealias LatencyEngine = (name: String, setUp: (Recorder) -> ((UInt64) -> Void, () -> Void))

/// Bond `deliverOn` on a serial DispatchQueue (S7's and `tail`'s). A function, not a global: top-level
/// code is main-actor isolated.
func deliverOnEngine() -> LatencyEngine {
  (
    "Bond deliverOn",
    { recorder in
      let producer = EventProducer<UInt64>()
      let observation = producer.deliverOn(DispatchQueue(label: "latency.deliverOn")).observe { recorder.receive($0) }
      return ({ producer.next($0) }, { observation.dispose() })
    }
  )
}

/// A bare `DispatchQueue.async` per event (S7's and `tail`'s).
func queueAsyncEngine() -> LatencyEngine {
  (
    "DispatchQueue.async",
    { recorder in
      let queue = DispatchQueue(label: "latency.async")
      return ({ stamp in queue.async { recorder.receive(stamp) } }, {})
    }
  )
}

/// Everything runs here, not in top-level code: closures formed there would be main-actor isolated,
/// and the runtime checks that isolation when the delivery queue calls them.
func runAll(_ options: Options) {
  if options.pin { pin(toCPU: 0) }
  let all: [(String, (Recorder) -> ((UInt64) -> Void, () -> Void))] = [
    deliverOnEngine(),
    dedicated("busySpin", .busySpin),
    dedicated("yield", .yield),
    dedicated("spinThenPark", .spinThenPark()),
    (
      "Bond batches",
      { recorder in
        let producer = EventProducer<UInt64>()
        let observation = producer.batches(on: DispatchQueue(label: "latency.batches")).observe {
          recorder.receive(batch: $0)
        }
        return ({ producer.next($0) }, { observation.dispose() })
      }
    ),
    (
      "OpenCombine receive(on:)",
      { recorder in
        let subject = PassthroughSubject<UInt64, Never>()
        let cancellable = subject.receive(on: DispatchQueue(label: "latency.opencombine").ocombine).sink {
          recorder.receive($0)
        }
        return ({ subject.send($0) }, { cancellable.cancel() })
      }
    ),
    queueAsyncEngine(),
  ]
  let engines = all.filter { engine in options.only?.contains { engine.0.contains($0) } ?? true }

  let percentiles: [(String, Double)] = [("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9)]
  var rows: [(String, [Double], Double)] = []
  for (name, setUp) in engines {
    let histogram = measure(options, setUp)
    let values = percentiles.map { Double(histogram.valueAtPercentile($0.1)) / 1_000 }
    rows.append((name, values, Double(histogram.max) / 1_000))
  }

  print(
    "S7 latency: next() to the observer on a serial queue, µs (\(options.events) events at \(options.rate)/s, HdrHistogram"
      + (options.pin ? "; sender on CPU 0, delivering threads on CPU 1)" : ")")
  )
  print("| engine | " + percentiles.map(\.0).joined(separator: " | ") + " | max |")
  print("|---|" + String(repeating: "---:|", count: percentiles.count + 1))
  for (name, values, max) in rows {
    print("| \(name) | " + values.map(fmt).joined(separator: " | ") + " | \(fmt(max)) |")
  }

  write(
    rows.map { name, values, max in
      [("engine", "\"\(name)\"")] + zip(percentiles, values).map { ("\($0.0.0)_us", "\($0.1)") }
        + [("max_us", "\(max)"), ("events", "\(options.events)"), ("rate", "\(options.rate)")]
    },
    json: options.json,
    csv: options.csv
  )
}

/// Writes `records` (each an ordered list of keys and JSON literals) as a JSON array and as CSV.
func write(_ records: [[(String, String)]], json: String?, csv: String?) {
  if let path = json {
    let objects = records.map { "  {" + $0.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}" }
    try? ("[\n" + objects.joined(separator: ",\n") + "\n]\n").write(toFile: path, atomically: true, encoding: .utf8)
  }
  if let path = csv, let first = records.first {
    let lines = [first.map(\.0)] + records.map { $0.map(\.1) }
    try? (lines.map { $0.joined(separator: ",") }.joined(separator: "\n") + "\n")
      .write(toFile: path, atomically: true, encoding: .utf8)
  }
}

let options = Options(CommandLine.arguments)
switch options.scenario {
case "S21": runFlood(options)
case "tail": runTail(options)
default: runAll(options)
}
