// S19 flow control and S20 concurrency-limited stages (`perf/flow`, run by `perf/bench S19` and
// `perf/bench S20`): ONE case per process, so that the
// process's peak resident memory (`getrusage`'s `ru_maxrss`) is that case's alone.
//
//   BondFlow CASE [--events N] [--rounds R]
//
// Prints one JSON object per line on stdout (S19d: one per variant). The cases:
//   S19a-backpressure, S19a-unbounded, S19a-dropOldest        (FlowPipelines.swift)
//   S19b-two-stages, S19b-two-stages-unbounded, S19b-partition, S19b-partition-unbounded
//   S19c-bond, S19c-mpsc, S19c-asyncchannel                   (IdleHop.swift)
//   S19d                                                      (S7Policies.swift)
//   S20a, S20c                                                (ConcurrentStages.swift)
import Bond
import Dispatch
import Foundation
import Synchronization

struct Options: Sendable {
  var name = ""
  /// Records (S19a, S19b), events (S19c) or events per round (S19d, S20a, S20c).
  var events = 2_000_000
  /// S19d, S20a, S20c: rounds of every variant, interleaved; the median is reported.
  var rounds = 9

  init(_ arguments: [String]) {
    var rest = arguments.dropFirst()
    while let argument = rest.popFirst() {
      switch argument {
      case "--events": events = Int(rest.popFirst() ?? "") ?? events
      case "--rounds": rounds = Int(rest.popFirst() ?? "") ?? rounds
      default: name = argument
      }
    }
  }
}

@inline(__always) func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// The process's peak resident memory so far, in MiB (Linux reports `ru_maxrss` in KiB).
func peakMiB() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_maxrss) / 1024
}

/// One output line: the keys in order, each with a JSON literal.
func emit(_ fields: [(String, Any)]) {
  let body = fields.map { key, value -> String in
    let literal: String
    switch value {
    case let text as String: literal = "\"\(text)\""
    case let flag as Bool: literal = flag ? "true" : "false"
    case let number as Double: literal = number.isFinite ? String(format: "%.6g", number) : "null"
    default: literal = "\(value)"
    }
    return "\"\(key)\": \(literal)"
  }
  FileHandle.standardOutput.write(("{" + body.joined(separator: ", ") + "}\n").data(using: .utf8)!)
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write("BondFlow: \(message)\n".data(using: .utf8)!)
  exit(2)
}

/// Everything runs here, not in top-level code: closures formed there would be main-actor
/// isolated, and the runtime checks that isolation when a delivery queue calls them.
func main(_ options: Options) async {
  precondition(MemoryLayout<Record>.size == 128, "a record is 128 bytes")
  if let pipeline = FlowPipeline(rawValue: options.name) {
    emit(await pipeline.run(records: options.events))
  } else if let hop = IdleHop(rawValue: options.name) {
    emit(await hop.run(events: options.events))
  } else if options.name == "S19d" {
    for line in runS7Policies(events: options.events, rounds: options.rounds) { emit(line) }
  } else if options.name == "S20a" {
    for line in await runS20a(events: options.events, rounds: options.rounds) { emit(line) }
  } else if options.name == "S20c" {
    for line in await runS20c(events: options.events, rounds: options.rounds) { emit(line) }
  } else {
    fail("unknown case '\(options.name)' (see the comment at the top of BondFlow/main.swift)")
  }
}

await main(Options(CommandLine.arguments))
