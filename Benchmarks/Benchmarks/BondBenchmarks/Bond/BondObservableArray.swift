// Bond S12 observable-array, 1 observer:
//   S12a: 100k appends (ns and mallocs per append);
//   S12b: replace(with:performDiff: true) of a 10k-element array with 1% changed, 10 times per
//         iteration (ns and mallocs per compared element);
//   S12c: the same replacements as a plain `.reset` (performDiff: false), per element, for comparison;
//   S12d: 100k appends seen through `filterElements` (even elements kept), per append.

import Benchmark
import Bond

func registerBondObservableArray() {
  register(.s12a, .bond, events: s12AppendsPerIteration) { benchmark in
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

  register(.s12b, .bond, events: diffEventsPerIteration) { benchmark in
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

  register(.s12c, .bond, events: diffEventsPerIteration) { benchmark in
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

  register(.s12d, .bond, events: s12AppendsPerIteration) { benchmark in
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
