// S12 observable-array, 1 observer:
//   S12a: 100k appends (ns and mallocs per append);
//   S12b: replace(with:performDiff: true) of a 10k-element array with 1% changed, 10 times per
//         iteration (ns and mallocs per compared element); closure: the standard library's diff;
//   S12c: the same replacements as a plain `.reset` (performDiff: false), per element, for comparison;
//   S12d: 100k appends seen through `filterElements` (even elements kept), per append.
// No observable array in the peers (n/a).

import Benchmark
import Bond

/// The shape of an array change a naive observable array sends (like Bond's, without batches).
enum NaiveArrayOperation {
  case insert(elements: [Int], fromIndex: Int)
  case reset([Int])
}

/// A naive observable array: an array plus a naive observer list of its operations.
private final class NaiveArray {
  private(set) var array: [Int] = []
  let changes = NaiveSubject<NaiveArrayOperation>()

  func append(_ element: Int) {
    array.append(element)
    changes.send(.insert(elements: [element], fromIndex: array.count - 1))
  }
}

/// 10 replaces per iteration of a 10k-element array, 1% of the elements changed each time.
let diffArraySize = 10_000
let diffReplacesPerIteration = 10
/// S12b counts compared elements as its events: 10 x 10k per iteration.
let diffEventsPerIteration = diffArraySize * diffReplacesPerIteration
let s12AppendsPerIteration = 100_000

/// The two arrays S12b alternates between: `base`, and `base` with every 100th element changed.
let diffArrays: (base: [Int], changed: [Int]) = {
  let base = Array(0..<diffArraySize)
  var changed = base
  for index in stride(from: 0, to: diffArraySize, by: 100) { changed[index] = -index - 1 }
  return (base, changed)
}()

func registerObservableArray() {
  register("S12a", .bond, events: s12AppendsPerIteration) { benchmark in
    let sink = Sink()
    let array = ObservableArray<Int>()
    let disposable = array.observe { event in
      if case .insert(let elements, _) = event.operation {
        for element in elements { sink.sum &+= element }
      }
    }
    benchmark.startMeasurement()
    for i in 0..<s12AppendsPerIteration { array.append(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }

  register("S12a", .closure, events: s12AppendsPerIteration) { benchmark in
    let sink = Sink()
    let observer: (Int) -> Void = opaque { sink.sum &+= $0 }
    var array: [Int] = []
    benchmark.startMeasurement()
    for i in 0..<s12AppendsPerIteration {
      array.append(i)
      observer(i)
    }
    benchmark.stopMeasurement()
    blackHole(array)
    blackHole(sink.sum)
  }

  register("S12a", .naive, events: s12AppendsPerIteration) { benchmark in
    let sink = Sink()
    let array = NaiveArray()
    array.changes.observe { operation in
      if case .insert(let elements, _) = operation {
        for element in elements { sink.sum &+= element }
      }
    }
    benchmark.startMeasurement()
    for i in 0..<s12AppendsPerIteration { array.append(i) }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  register("S12b", .bond, events: diffEventsPerIteration) { benchmark in
    let sink = Sink()
    let array = ObservableArray(diffArrays.base)
    let disposable = array.observe { event in
      if case .batch(let operations) = event.operation { sink.sum &+= operations.count }
    }
    benchmark.startMeasurement()
    for replace in 0..<diffReplacesPerIteration {
      array.replace(with: replace & 1 == 0 ? diffArrays.changed : diffArrays.base, performDiff: true)
    }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }

  register("S12b", .closure, events: diffEventsPerIteration) { benchmark in
    // The standard library's diff (`difference(from:)`) of the same arrays.
    let sink = Sink()
    var current = diffArrays.base
    benchmark.startMeasurement()
    for replace in 0..<diffReplacesPerIteration {
      let next = replace & 1 == 0 ? diffArrays.changed : diffArrays.base
      let difference = next.difference(from: current)
      sink.sum &+= difference.count
      current = next
    }
    benchmark.stopMeasurement()
    blackHole(sink.sum)
  }

  register("S12c", .bond, events: diffEventsPerIteration) { benchmark in
    let sink = Sink()
    let array = ObservableArray(diffArrays.base)
    let disposable = array.observe { event in
      if case .reset(let elements) = event.operation { sink.sum &+= elements.count }
    }
    benchmark.startMeasurement()
    for replace in 0..<diffReplacesPerIteration {
      array.replace(with: replace & 1 == 0 ? diffArrays.changed : diffArrays.base, performDiff: false)
    }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }

  register("S12d", .bond, events: s12AppendsPerIteration) { benchmark in
    let sink = Sink()
    let array = ObservableArray<Int>()
    let disposable = array.filterElements { $0 & 1 == 0 }.observe { event in
      if case .insert(let elements, _) = event.operation {
        for element in elements { sink.sum &+= element }
      }
    }
    benchmark.startMeasurement()
    for i in 0..<s12AppendsPerIteration { array.append(i) }
    benchmark.stopMeasurement()
    disposable.dispose()
    blackHole(sink.sum)
  }
}
