// `BondLatency tail` (issue 23, item 3): where deliverOn's S7 tail comes from. Rounds of the S7 run
// alternate Bond `deliverOn` on a DispatchQueue and a bare `DispatchQueue.async` per event (the one
// first in a round goes second in the next), and each run reports, beside its percentiles, what
// tells an engine's own tail from the platform's:
//
// - late: the events over 100 µs, and the episodes they form (a late event sent more than 1 ms
//   after the previous late one starts a new episode), with the longest episode's length (from its
//   first event's send to its last event's delivery). An engine that stalls now and then on its
//   own (a lock held across a wake-up, a buffer growing, a drain behind a burst) spreads its late
//   events over many short episodes; a thread taken off its core makes one long episode.
// - ivcsw: the process's involuntary context switches during the measured run (`getrusage`): the
//   kernel took one of its threads off a core for something else.
// - steal: the CPU time the hypervisor gave to other guests during the run (`/proc/stat`, 10 ms
//   ticks).
//
// With `--pin` (as in `BondLatency --pin`), the sender runs on CPU 0 and every thread that
// delivers moves itself to CPU 1 on its first event: the kernel can then no longer wake the
// delivering thread on the sender's core, behind a thread that never sleeps (the busy-wait to each
// event's slot).
//
//   BondLatency tail [--events N] [--rate R] [--rounds K] [--pin]     perf/latency tail
import Bond
import Dispatch
import Foundation
import Histogram

/// What one measured run gave.
struct TailRun {
  var p50 = 0.0
  var p99 = 0.0
  var max = 0.0
  var lateEvents = 0
  var episodes = 0
  var longestEpisode = 0.0
  var involuntarySwitches = 0
  var stealMilliseconds = 0
}

/// The process's involuntary context switches so far.
func involuntarySwitches() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return usage.ru_nivcsw
}

/// The machine's steal time so far, in ms (0 when `/proc/stat` has no steal column).
func stealMilliseconds() -> Int {
  guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
    let line = stat.split(separator: "\n").first
  else { return 0 }
  let fields = line.split(separator: " ").dropFirst().compactMap { Int($0) }
  return fields.count > 7 ? fields[7] * 10 : 0
}

/// Moves the calling thread to `cpu` (`sched_setaffinity` on the thread).
func pin(toCPU cpu: Int) {
  var set = cpu_set_t()
  withUnsafeMutableBytes(of: &set) { bytes in
    bytes.storeBytes(of: UInt64(1) << UInt64(cpu), toByteOffset: 0, as: UInt64.self)
  }
  // glibc declares sched_setaffinity under _GNU_SOURCE only, which the Glibc module does not set.
  typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
  // nil: RTLD_DEFAULT.
  guard let symbol = dlsym(nil, "sched_setaffinity") else {
    fatalError("BondLatency tail --pin: no sched_setaffinity")
  }
  let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
  guard withUnsafeBytes(of: &set, { setAffinity(0, $0.count, $0.baseAddress!) }) == 0 else {
    fatalError("BondLatency tail --pin: sched_setaffinity to CPU \(cpu) failed (errno \(errno))")
  }
}

/// `--pin`: whether the calling delivery thread has moved itself to CPU 1 yet (one flag per thread).
final class PinnedThreadFlag: @unchecked Sendable {
  private let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()

  /// Moves the calling thread to CPU 1 the first time it is called on that thread.
  @inline(__always)
  func pinOnce() {
    guard pthread_getspecific(key) == nil else { return }
    pin(toCPU: 1)
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
  }
}

/// Runs `engine` once (warm-up, then `options.events` recorded) and reads its tail.
func tailRun(_ options: Options, _ engine: LatencyEngine) -> TailRun {
  let recorder = Recorder(pin: options.pin)
  recorder.lateAfter = 100_000
  recorder.late.reserveCapacity(options.events)
  let (send, tearDown) = engine.setUp(recorder)
  run(recorder, count: 50_000, rate: options.rate, recording: false, send)
  let switches = involuntarySwitches()
  let steal = stealMilliseconds()
  run(recorder, count: options.events, rate: options.rate, recording: true, send)
  var result = TailRun()
  result.involuntarySwitches = involuntarySwitches() - switches
  result.stealMilliseconds = stealMilliseconds() - steal
  tearDown()
  let histogram = recorder.histogram
  result.p50 = Double(histogram.valueAtPercentile(50)) / 1_000
  result.p99 = Double(histogram.valueAtPercentile(99)) / 1_000
  result.max = Double(histogram.max) / 1_000
  result.lateEvents = recorder.late.count
  var episodeStart: UInt64 = 0
  var previous: UInt64 = 0
  for (stamp, latency) in recorder.late {
    if result.episodes == 0 || stamp &- previous > 1_000_000 {
      result.episodes += 1
      episodeStart = stamp
    }
    previous = stamp
    result.longestEpisode = Swift.max(result.longestEpisode, Double(stamp &+ latency &- episodeStart) / 1_000)
  }
  return result
}

func runTail(_ options: Options) {
  if options.pin { pin(toCPU: 0) }
  let engines = [deliverOnEngine(), queueAsyncEngine()]
  print(
    "S7 tail: \(options.rounds) rounds of \(options.events) events at \(options.rate)/s per engine, µs"
      + (options.pin ? "; sender on CPU 0, delivering threads on CPU 1" : "")
  )
  print("| round | engine | p50 | p99 | max | late (>100 µs) | episodes | longest episode | ivcsw | steal ms |")
  print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
  var p99s = [[Double]](repeating: [], count: engines.count)
  var quiet = [Int](repeating: 0, count: engines.count)
  for round in 1...options.rounds {
    let order = round % 2 == 1 ? Array(engines.indices) : engines.indices.reversed()
    for index in order {
      let result = tailRun(options, engines[index])
      p99s[index].append(result.p99)
      if result.involuntarySwitches == 0 { quiet[index] += 1 }
      let cells = [
        "\(round)", engines[index].name, fmt(result.p50), fmt(result.p99), fmt(result.max), "\(result.lateEvents)",
        "\(result.episodes)", fmt(result.longestEpisode), "\(result.involuntarySwitches)",
        "\(result.stealMilliseconds)",
      ]
      print("| " + cells.joined(separator: " | ") + " |")
    }
  }
  let within = zip(p99s[0], p99s[1]).filter { $0 <= 2 * $1 }.count
  let median = { (values: [Double]) in values.sorted()[values.count / 2] }
  print(
    "\ndeliverOn's p99 within 2x the bare queue's in \(within) of \(options.rounds) rounds; median p99 "
      + "\(fmt(median(p99s[0]))) µs against \(fmt(median(p99s[1]))) µs; runs with no involuntary switch: "
      + "deliverOn \(quiet[0]), DispatchQueue.async \(quiet[1])"
  )
}
