// S21 observe + dispose while another thread floods (`perf/latency S21`, run by `perf/bench S21`):
// the time of one `observe` + `dispose` (OpenCombine: `sink` + `cancel`) on the measured thread
// while a second thread sends continuously to a ~1 µs observer of the same producer.
//
//   BondLatency S21 [--cycles N] [--seconds S] [--json FILE] [--csv FILE]
//
// Per engine: the producer gets its long-lived observer (busy on the clock for 1 µs per event),
// 1,000 cycles run before the flood (not recorded), then a `Thread` sends 0, 1, 2, ... in a tight
// loop and the measured thread records each cycle's duration in an HdrHistogram, until N cycles or
// S seconds from the start of the flood, whichever comes first. The flood stops by itself at that
// deadline too, so a cycle trapped delivering the flooder's events ends there and the run is bounded:
// "only K cycles" is then the figure. The flooder keeps at most `floodBacklogLimit` events sent and
// not yet delivered: a thread trapped delivering the flood delivers it as long as the flood lasts,
// but the queue (and the memory) stays bounded.
import Bond
import Dispatch
import Foundation
import Histogram
import OpenCombine
import Synchronization

/// How long the long-lived observer works per event (busy on the clock).
let floodObserverNanoseconds: UInt64 = 1_000

/// Events the flooder may have sent and not yet seen delivered: about 0.1 s of the observer's work
/// (a few MB queued at most). Large enough that a thread trapped delivering the flood stays trapped
/// when the flooder is descheduled for a few ms; small enough that it drains in ~0.1 s once the flood ends.
let floodBacklogLimit = 100_000

/// Cycles run before the flood starts, not recorded.
let floodWarmUpCycles = 1_000

/// The flooding thread and the long-lived observer's side of it.
final class Flooder: Sendable {
  /// How long the flood lasts at most, from `start`.
  private let duration: UInt64
  /// When the flood stops by itself (the measured thread's deadline too); set by `start`.
  private let deadlineTime = Atomic<UInt64>(.max)
  /// Events the long-lived observer has finished.
  let delivered = Atomic<Int>(0)
  private let stopRequested = Atomic<Bool>(false)
  private let finished = DispatchSemaphore(value: 0)

  init(seconds: Double) {
    duration = UInt64(seconds * 1e9)
  }

  var deadline: UInt64 { deadlineTime.load(ordering: .relaxed) }

  /// The long-lived observer: ~1 µs of work, then counts the event.
  func observe(_ value: Int) {
    let end = now() &+ floodObserverNanoseconds
    while now() < end {}
    delivered.add(1, ordering: .releasing)
  }

  private var flooding: Bool {
    !stopRequested.load(ordering: .relaxed) && now() < deadline
  }

  /// Starts the thread calling `send(0)`, `send(1)`, ... until `stop()` or the deadline; returns
  /// once the observer has received the first 100 events, so the flood is on.
  func start(_ send: @escaping @Sendable (Int) -> Void) {
    deadlineTime.store(now() &+ duration, ordering: .relaxed)
    let thread = Thread { [self] in
      var sent = 0
      while flooding {
        send(sent)
        sent &+= 1
        while sent &- delivered.load(ordering: .acquiring) > floodBacklogLimit && flooding {}
      }
      finished.signal()
    }
    thread.start()
    while delivered.load(ordering: .acquiring) < 100 && flooding {}
  }

  /// Stops the flood and waits until the thread has left its loop.
  func stop() {
    stopRequested.store(true, ordering: .relaxed)
    finished.wait()
  }
}

/// Moves a value that is not `Sendable` (an OpenCombine subject) into the flooding thread; the
/// subject serializes its own sends and subscriptions with its locks.
struct UncheckedBox<Value>: @unchecked Sendable {
  let value: Value
}

/// One engine of S21: given the flooder, its producer with the long-lived observer attached, the
/// flooder's send, the measured cycle, and the teardown.
struct FloodEngine {
  let name: String
  let setUp: (Flooder) -> (send: @Sendable (Int) -> Void, cycle: () -> Void, tearDown: () -> Void)
}

/// Bond and OpenCombine (a function: a global of closures would not be concurrency-safe).
func floodEngines() -> [FloodEngine] {
  [
    FloodEngine(name: "Bond observe + dispose") { flooder in
      let producer = EventProducer<Int>()
      let observation = producer.observe { flooder.observe($0) }
      return (
        { producer.next($0) },
        {
          let disposable = producer.observe { _ in }
          disposable.dispose()
        },
        { observation.dispose() }
      )
    },
    FloodEngine(name: "OpenCombine sink + cancel") { flooder in
      let subject = UncheckedBox(value: PassthroughSubject<Int, Never>())
      let cancellable = subject.value.sink { flooder.observe($0) }
      return (
        { subject.value.send($0) },
        {
          let cancellable = subject.value.sink { _ in }
          cancellable.cancel()
        },
        { cancellable.cancel() }
      )
    },
  ]
}

/// One engine's figures.
struct FloodResult {
  let name: String
  let histogram: Histogram<UInt64>
  let cycles: Int
  let seconds: Double
  let floodEvents: Int
}

/// Warm-up, flood, then cycles until `cycles` are done or the flood's deadline has passed.
func measureFlood(_ engine: FloodEngine, cycles: Int, seconds: Double) -> FloodResult {
  let flooder = Flooder(seconds: seconds)
  let (send, cycle, tearDown) = engine.setUp(flooder)
  for _ in 0..<floodWarmUpCycles { cycle() }
  var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
  flooder.start(send)
  let deadline = flooder.deadline
  let floodStart = flooder.delivered.load(ordering: .acquiring)
  let start = now()
  var done = 0
  var end = start
  while done < cycles && end < deadline {
    let cycleStart = now()
    cycle()
    end = now()
    histogram.record(end &- cycleStart)
    done += 1
  }
  let floodEvents = flooder.delivered.load(ordering: .acquiring) &- floodStart
  flooder.stop()
  tearDown()
  return FloodResult(
    name: engine.name,
    histogram: histogram,
    cycles: done,
    seconds: Double(end &- start) / 1e9,
    floodEvents: floodEvents
  )
}

/// A duration in ns, in the unit that keeps it short: "850 ns", "1.52 µs", "37.1 ms", "2.00 s".
func duration(_ nanoseconds: Double) -> String {
  let (value, unit) =
    nanoseconds >= 1e9
    ? (nanoseconds / 1e9, "s")
    : nanoseconds >= 1e6
      ? (nanoseconds / 1e6, "ms") : nanoseconds >= 1e3 ? (nanoseconds / 1e3, "µs") : (nanoseconds, "ns")
  return "\(fmt(value)) \(unit)"
}

/// Runs S21 on every engine and prints its table; `--json`/`--csv` get the same figures in ns.
func runFlood(_ options: Options) {
  let results = floodEngines().map { measureFlood($0, cycles: options.cycles, seconds: options.seconds) }
  print(
    "S21 observe + dispose while another thread floods a 1 µs observer of the same producer: one cycle"
      + " (at most \(options.cycles) cycles or \(fmt(options.seconds)) s of flood per engine, HdrHistogram)"
  )
  print("| engine | p50 | p99 | p99.9 | mean | max | cycles | time | flood events/s |")
  print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
  for result in results {
    let h = result.histogram
    let figures = [h.valueAtPercentile(50), h.valueAtPercentile(99), h.valueAtPercentile(99.9)].map { Double($0) }
    let rate = result.seconds > 0 ? Double(result.floodEvents) / result.seconds : 0
    print(
      "| \(result.name) | " + (figures + [h.mean, Double(h.max)]).map(duration).joined(separator: " | ")
        + " | \(result.cycles) | \(fmt(result.seconds)) s | \(String(format: "%.0f", rate)) |"
    )
  }
  write(
    results.map { result in
      [
        ("engine", "\"\(result.name)\""), ("p50_ns", "\(result.histogram.valueAtPercentile(50))"),
        ("p99_ns", "\(result.histogram.valueAtPercentile(99))"),
        ("p99_9_ns", "\(result.histogram.valueAtPercentile(99.9))"), ("mean_ns", "\(result.histogram.mean)"),
        ("max_ns", "\(result.histogram.max)"),
        ("cycles", "\(result.cycles)"), ("cycles_requested", "\(options.cycles)"), ("seconds", "\(result.seconds)"),
        ("flood_events", "\(result.floodEvents)"),
      ]
    },
    json: options.json,
    csv: options.csv
  )
}
