// S20: concurrency-limited stages, the cases that need no malloc counter (S20b, the
// overhead in ns and mallocs per event, is a package-benchmark scenario: BondBenchmarks).
//
//   S20a  1M events, ~1 µs of CPU work per event in the transform (`mix`, calibrated at start):
//         Bond `map(maxConcurrent: 1)`, `map(maxConcurrent: 2)`, and the hand-written `TaskGroup`
//         window of 2 (`taskGroupWindow`, BenchWork).
//   S20c  20,000 events, a transform that sleeps 1 ms (`Task.sleep`): Bond `map(maxConcurrent: 100)`
//         and the `TaskGroup` window of 100; the ideal is 100,000 events/s.
//
// Bond's sender is a loop of `try await producer.send(i)` in the measuring task, then `finish()`:
// `send(_:)` waits while the stage's buffer is full (the default `bufferLimit: 1024`, released at
// 512), so memory stays bounded; a `next` loop would never wait and would queue all the events.
// Timed from the first send to the stage's end (delivered after the last result). The observer
// counts the results and checks their order (`InOrder`); "max in flight" is the events sent and not
// yet delivered, sampled every 1,024. The variants run interleaved, `rounds` times each (rotated
// order, after one warm-up round each at a tenth of the events); the median round is reported.
// S20a also measures, before and after its rounds, how much faster two threads do twice the work of
// one (`twoThreadSpeedup`): the machine's own ceiling at that moment (other processes share the
// cores).
import BenchWork
import Bond
import Foundation

/// One variant of an S20 case: a round of `events` events, timed until the last result.
struct ConcurrentVariant {
  let name: String
  /// `false`: the hand-written `TaskGroup` window of `width`.
  let bond: Bool
  let width: Int
  let transform: @Sendable (Int) async -> Int
  /// Bond only: a `next` loop on a thread of its own into a stage whose `bufferLimit` is the
  /// event count (never under pressure, the sender never waits: every event can queue), instead
  /// of `send(_:)` from the measuring task.
  var threadSender = false
  /// Bond only, with `send(_:)` from the measuring task: `bufferLimit` is the event count, so the
  /// sender never waits (it never suspends): the cost of the waits, against the default.
  var senderNeverWaits = false

  func round(events: Int) async -> Round {
    let progress = Progress()
    let consumer = InOrder(workNanoseconds: 0, progress: progress, statistics: nil)
    let usageBefore = processUsage()
    let poolBefore = poolThreadTimes()
    let start = now()
    if bond {
      let producer = EventProducer<Int>()
      let completion = Completion(count: 1)
      let bufferLimit = threadSender || senderNeverWaits ? events : 1024
      let observation = producer.map(maxConcurrent: width, bufferLimit: bufferLimit, transform)
        .observe({ consumer.receive($0) }, finished: { completion.finishOne() })
      if threadSender {
        Thread {
          for i in 0..<events {
            if i & 255 == 0 { progress.generated.store(i, ordering: .relaxed) }
            producer.next(i)
          }
          producer.finish()
        }.start()
      } else {
        do {
          for i in 0..<events {
            if i & 255 == 0 { progress.generated.store(i, ordering: .relaxed) }
            try await producer.send(i)
          }
        } catch {
          fail("\(name): send threw \(error)")
        }
        producer.finish()
      }
      await completion.wait()
      observation.dispose()
    } else {
      await taskGroupWindow(count: events, width: width, transform) { value in
        // The window starts an event only when fewer than `width` are undelivered.
        progress.generated.store(value + width, ordering: .relaxed)
        consumer.receive(value)
      }
    }
    let wall = Int(now() - start)
    let ns = Double(wall) / Double(events)
    let usage = processUsage() - usageBefore
    let pool = poolIdle(since: poolBefore, wall: wall)
    return Round(
      ns: ns,
      cpuNs: Double(usage.cpuNanoseconds) / Double(events),
      switchesPerThousand: Double(usage.contextSwitches) * 1000 / Double(events),
      poolIdleNs: Double(pool.idle) / Double(events),
      poolRunDelayNs: Double(pool.runDelay) / Double(events),
      delivered: consumer.delivered,
      inOrder: consumer.delivered == events && consumer.outOfOrder == 0,
      maxInFlight: consumer.maxInFlight
    )
  }
}

/// One round's figures: wall time and the process's CPU time (user + system, every thread) per
/// event, and its context switches (voluntary + involuntary) per 1,000 events. CPU time depends
/// far less than wall time on what else runs on the machine.
struct Round {
  let ns: Double
  let cpuNs: Double
  let switchesPerThousand: Double
  /// Dispatch's pool threads (they run the workers and the sending task): time asleep (no job:
  /// the cores the round leaves idle, whatever the load) and time runnable but waiting for a core
  /// (the machine's load), per event.
  let poolIdleNs: Double
  let poolRunDelayNs: Double
  let delivered: Int
  let inOrder: Bool
  let maxInFlight: Int
}

/// The process's CPU time and context switches so far (`getrusage`).
func processUsage() -> (cpuNanoseconds: Int, contextSwitches: Int) {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  let cpu =
    (Int(usage.ru_utime.tv_sec) + Int(usage.ru_stime.tv_sec)) * 1_000_000_000
    + (Int(usage.ru_utime.tv_usec) + Int(usage.ru_stime.tv_usec)) * 1_000
  return (cpu, Int(usage.ru_nvcsw) + Int(usage.ru_nivcsw))
}

/// Per thread of Dispatch's default-QoS pool (named "com.apple.root.default-qos", truncated to
/// its last 15 characters; not the overcommit one): its time on a core and its time runnable but
/// waiting for one, in ns (`/proc/self/task/*/schedstat`). Empty where there is no such file.
func poolThreadTimes() -> [String: (cpu: Int, runDelay: Int)] {
  var times: [String: (cpu: Int, runDelay: Int)] = [:]
  let tasks = "/proc/self/task"
  for thread in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
    guard let name = try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8),
      name.hasSuffix("default-qos\n"),
      let line = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8)
    else { continue }
    let fields = line.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    if fields.count >= 2 { times[thread] = (fields[0], fields[1]) }
  }
  return times
}

/// The pool threads' time asleep and runnable-but-waiting over `wall` ns since `before`: for each
/// thread alive at both ends, `wall` minus its time on a core minus its wait for one (a thread
/// started during the round counts its wait only).
func poolIdle(since before: [String: (cpu: Int, runDelay: Int)], wall: Int) -> (idle: Int, runDelay: Int) {
  var idle = 0
  var runDelay = 0
  for (thread, now) in poolThreadTimes() {
    let then = before[thread] ?? (now.cpu, 0)
    let cpu = now.cpu - then.cpu
    let delay = now.runDelay - then.runDelay
    runDelay += delay
    if before[thread] != nil { idle += max(0, wall - cpu - delay) }
  }
  return (idle, runDelay)
}

func - (
  lhs: (cpuNanoseconds: Int, contextSwitches: Int),
  rhs: (cpuNanoseconds: Int, contextSwitches: Int)
) -> (cpuNanoseconds: Int, contextSwitches: Int) {
  (lhs.cpuNanoseconds - rhs.cpuNanoseconds, lhs.contextSwitches - rhs.contextSwitches)
}

/// Runs the variants interleaved; one output line per variant (its median round).
func runConcurrentCase(
  _ name: String,
  events: Int,
  rounds: Int,
  _ variants: [ConcurrentVariant]
) async -> [[(String, Any)]] {
  // BOND_S20_VARIANTS (comma-separated indices into `variants`): run only those, e.g. to count
  // one variant's context switches under `perf stat`.
  let only = ProcessInfo.processInfo.environment["BOND_S20_VARIANTS"].map {
    Set($0.split(separator: ",").compactMap { Int($0) })
  }
  let variants = variants.enumerated().filter { only?.contains($0.offset) ?? true }.map(\.element)
  for variant in variants { _ = await variant.round(events: max(1, events / 10)) }
  var results = Array(repeating: [Round](), count: variants.count)
  for r in 0..<rounds {
    for k in 0..<variants.count {
      let index = (k + r) % variants.count
      results[index].append(await variants[index].round(events: events))
    }
  }
  return zip(variants, results).map { variant, rounds in
    let median = rounds.sorted { $0.ns < $1.ns }[rounds.count / 2]
    let medianCPU = rounds.map(\.cpuNs).sorted()[rounds.count / 2]
    return [
      ("case", name), ("variant", variant.name), ("bond", variant.bond), ("width", variant.width),
      ("events", events), ("rounds", rounds.count), ("ns_per_event", median.ns),
      ("all_ns", rounds.map { String(format: "%.0f", $0.ns) }.joined(separator: ", ")),
      ("cpu_ns_per_event", medianCPU),
      ("all_cpu_ns", rounds.map { String(format: "%.0f", $0.cpuNs) }.joined(separator: ", ")),
      ("switches_per_1k", rounds.map(\.switchesPerThousand).sorted()[rounds.count / 2]),
      ("pool_idle_ns", rounds.map(\.poolIdleNs).sorted()[rounds.count / 2]),
      ("all_pool_idle_ns", rounds.map { String(format: "%.0f", $0.poolIdleNs) }.joined(separator: ", ")),
      ("pool_run_delay_ns", rounds.map(\.poolRunDelayNs).sorted()[rounds.count / 2]),
      ("delivered", median.delivered), ("all_in_order", rounds.allSatisfy(\.inOrder)),
      ("max_in_flight", rounds.map(\.maxInFlight).max() ?? 0), ("peak_mib", peakMiB()),
    ]
  }
}

/// S20a: ~1 µs of CPU work per event.
func runS20a(events: Int, rounds: Int) async -> [[(String, Any)]] {
  // BOND_S20_WORK_ROUNDS: the rounds of `mix` per event instead of the calibration (which reads
  // the load as a slower core), so that two processes compare their CPU time per event.
  let workRounds =
    ProcessInfo.processInfo.environment["BOND_S20_WORK_ROUNDS"].flatMap { Int($0) }
    ?? microsecondOfRounds()
  let ceilingBefore = twoThreadSpeedup()
  let work: @Sendable (Int) async -> Int = { value in
    consume(Int(truncatingIfNeeded: mix(UInt64(value), rounds: workRounds)))
    return value
  }
  var lines = await runConcurrentCase(
    "S20a",
    events: events,
    rounds: rounds,
    [
      ConcurrentVariant(name: "map(maxConcurrent: 1)", bond: true, width: 1, transform: work),
      ConcurrentVariant(name: "map(maxConcurrent: 2)", bond: true, width: 2, transform: work),
      ConcurrentVariant(name: "TaskGroup window of 2", bond: false, width: 2, transform: work),
      ConcurrentVariant(
        name: "map(maxConcurrent: 1), next from a thread",
        bond: true,
        width: 1,
        transform: work,
        threadSender: true
      ),
      ConcurrentVariant(
        name: "map(maxConcurrent: 2), next from a thread",
        bond: true,
        width: 2,
        transform: work,
        threadSender: true
      ),
      ConcurrentVariant(
        name: "map(maxConcurrent: 1), send never waits",
        bond: true,
        width: 1,
        transform: work,
        senderNeverWaits: true
      ),
      ConcurrentVariant(
        name: "map(maxConcurrent: 2), send never waits",
        bond: true,
        width: 2,
        transform: work,
        senderNeverWaits: true
      ),
    ]
  )
  let ceilingAfter = twoThreadSpeedup()
  for index in lines.indices {
    lines[index] += [
      ("work_rounds", workRounds), ("two_threads_before", ceilingBefore), ("two_threads_after", ceilingAfter),
    ]
  }
  return lines
}

/// S20c: a transform that sleeps 1 ms.
func runS20c(events: Int, rounds: Int) async -> [[(String, Any)]] {
  let sleep: @Sendable (Int) async -> Int = { value in
    try? await Task.sleep(nanoseconds: 1_000_000)
    return value
  }
  return await runConcurrentCase(
    "S20c",
    events: events,
    rounds: rounds,
    [
      ConcurrentVariant(name: "map(maxConcurrent: 100)", bond: true, width: 100, transform: sleep),
      ConcurrentVariant(name: "TaskGroup window of 100", bond: false, width: 100, transform: sleep),
    ]
  )
}
