// Model-based tests: random programs of `next` (on a producer `p` with replay 0 to 3, and on a
// second producer `q`), `observe` (through map, filter, skip, distinct, startWith, reduce,
// observeNew, combineLatest(p, q), merge([p, q]), outer.switchToLatest() over p and q, and an
// observer that echoes into `p`), `dispose`, reentrant sends, and disposers: observers of `p` or
// of `q` that dispose another observation (of either producer) from inside their deliveries, run
// against the engine and against a plain single-threaded reference model written below; every
// observer's log must be equal. A dispose from inside a delivery takes effect at once (guarantee
// 3): an observer after the disposer in the producer's order does not receive the current event,
// so the model keeps each producer's observers in the engine's order (registration order; a
// switchToLatest observer moves to the end of the inner's order at each switch). (Array mutations are model-checked the same
// way in Tests/BondTests/ObservableArrayPropertyTests.swift: mirrors rebuilt from the events.)
//
// A program is an array of small integers decoded into steps (so the library shrinks programs by
// shrinking the array and its values); a failure prints the shrunk, decoded program. PropertyBased
// prints the seed of a failing run; replay it with the test trait
// `@Test(.fixedSeed("<seed>"))` on the test below.
import PropertyBased
import Testing
import Bond

/// The operator chains a program can observe through.
enum Chain: Int, CaseIterable, CustomStringConvertible {
  case plain, map, filter, skip, distinct, startWith, echo, reduce, observeNew, combine, merge, switchLatest

  var description: String {
    switch self {
    case .plain: "observe"
    case .map: "map{*3}"
    case .filter: "filter{even}"
    case .skip: "skip(2)"
    case .distinct: "distinct"
    case .startWith: "startWith(-1)"
    case .echo: "observe+echo"
    case .reduce: "reduce(+)"
    case .observeNew: "observeNew"
    case .combine: "combineLatest(p, q){p*10+q}"
    case .merge: "merge([p, q])"
    case .switchLatest: "outer.switchToLatest()"
    }
  }
}

/// One step of a program.
enum Step: CustomStringConvertible {
  case send(Int)
  case sendQ(Int)
  case observe(Chain)
  case dispose(Int)
  /// `outer.next(p)` or `outer.next(q)`: what the switchToLatest observers follow.
  case switchTo(toQ: Bool)
  /// A plain observer of `q` (or of `p`) that logs, and at each event it receives disposes the
  /// observation `target % count` (resolved when it registers, among the observations before it).
  case disposer(onQ: Bool, target: Int)

  /// Decodes a generated integer: mostly sends (to `p`, some to `q`), some observes, some disposes.
  init(code: Int) {
    switch code % 9 {
    case 0, 1, 2: self = .send((code / 9) % 8)
    case 3: self = .sendQ((code / 9) % 8)
    case 4, 5: self = .observe(Chain.allCases[(code / 9) % Chain.allCases.count])
    case 6: self = .dispose(code / 9)
    case 7: self = .switchTo(toQ: (code / 9) % 2 == 1)
    default: self = .disposer(onQ: (code / 9) % 2 == 1, target: code / 18)
    }
  }

  var description: String {
    switch self {
    case .send(let value): "p.next(\(value))"
    case .sendQ(let value): "q.next(\(value))"
    case .observe(let chain): chain.description
    case .dispose(let index): "dispose(#\(index))"
    case .switchTo(let toQ): "outer.next(\(toQ ? "q" : "p"))"
    case .disposer(let onQ, let target): "\(onQ ? "q" : "p").observe{dispose(#\(target))}"
    }
  }
}

/// The echo chain's observer sends `value + 50` back into the producer for values below 5.
let echoLimit = 5
let echoOffset = 50

/// The reference model: single-threaded, obviously correct, no engine code.
struct Model {
  struct Observer {
    let chain: Chain
    var log: [Int] = []
    var active = true
    /// A disposer logs what it receives and disposes observer `target` (if any) at each event.
    var isDisposer = false
    var target: Int?
    var seen = 0  // skip
    var last: Int?  // distinct
    var sum = 0  // reduce
    var latestP: Int?, latestQ: Int?  // combine

    /// Feeds one event of `q` (only combine and merge observe it).
    mutating func feedQ(_ event: Int) {
      switch chain {
      case .combine:
        latestQ = event
        if let latestP { log.append(latestP * 10 + event) }
      case .merge, .switchLatest: log.append(event)  // switchLatest: fed only while it follows q
      default: break
      }
    }

    /// Feeds one raw event of `p` through the chain; returns the echo to send, if any.
    mutating func feed(_ event: Int, replayed: Bool) -> Int? {
      switch chain {
      case .combine:
        latestP = event
        if let latestQ { log.append(event * 10 + latestQ) }
      case .merge, .switchLatest: log.append(event)  // switchLatest: fed only while it follows p
      case .plain, .startWith: log.append(event)
      case .map: log.append(event * 3)
      case .filter: if event % 2 == 0 { log.append(event) }
      case .skip:
        seen += 1
        if seen > 2 { log.append(event) }
      case .distinct:
        if last != event { log.append(event) }
        last = event
      case .reduce:
        sum += event
        log.append(sum)
      case .observeNew: if !replayed { log.append(event) }
      case .echo:
        log.append(event)
        if event < echoLimit { return event + echoOffset }
      }
      return nil
    }
  }

  let replayLength: Int
  var history: [Int] = []
  /// The inner producer the switchToLatest observers follow: nil, false (p) or true (q).
  var followsQ: Bool?
  var observers: [Observer] = []
  /// The observers of `p` and of `q` (indices into `observers`) in the engine's delivery order.
  var pOrder: [Int] = [], qOrder: [Int] = []

  /// A disposer's turn: logs the event and disposes its target (at once: later observers in the
  /// same delivery no longer receive it).
  mutating func fireDisposer(_ index: Int, _ event: Int) {
    observers[index].log.append(event)
    if let target = observers[index].target { observers[target].active = false }
  }

  mutating func send(_ value: Int) {
    var queue = [value]
    while !queue.isEmpty {
      let event = queue.removeFirst()
      history.append(event)
      // Every observer registered before the event, in order; `active` is read at each one's turn.
      // Echoes are queued behind the event (reentrancy rule).
      for index in pOrder where observers[index].active {
        if observers[index].isDisposer {
          fireDisposer(index, event)
          continue
        }
        if let echo = observers[index].feed(event, replayed: false) { queue.append(echo) }
      }
    }
  }

  mutating func sendQ(_ value: Int) {
    // `q` has no replay and no echoing observer: one delivery to its observers.
    for index in qOrder where observers[index].active {
      if observers[index].isDisposer {
        fireDisposer(index, value)
        continue
      }
      observers[index].feedQ(value)
    }
  }

  /// A new inner: every switchToLatest observer, in registration order, drops its subscription
  /// to the old inner and subscribes to the new one (at the end of its order; p replays).
  mutating func switchTo(toQ: Bool) {
    followsQ = toQ
    for index in observers.indices where observers[index].active && observers[index].chain == .switchLatest {
      pOrder.removeAll { $0 == index }
      qOrder.removeAll { $0 == index }
      if toQ {
        qOrder.append(index)
      } else {
        pOrder.append(index)
        for event in history.suffix(replayLength) { _ = observers[index].feed(event, replayed: true) }
      }
    }
  }

  mutating func observe(_ chain: Chain) {
    let index = observers.count
    if chain == .switchLatest {
      // The outer replays its current inner (replay 1), whose own replay follows.
      var observer = Observer(chain: chain)
      if followsQ == false {
        for event in history.suffix(replayLength) { _ = observer.feed(event, replayed: true) }
        pOrder.append(index)
      } else if followsQ == true {
        qOrder.append(index)
      }
      observers.append(observer)
      return
    }
    var observer = Observer(chain: chain)
    if chain == .startWith { observer.log.append(-1) }
    var echoes: [Int] = []
    for event in history.suffix(replayLength) {
      if let echo = observer.feed(event, replayed: true) { echoes.append(echo) }
    }
    observers.append(observer)
    pOrder.append(index)
    if chain == .combine || chain == .merge { qOrder.append(index) }
    for echo in echoes { send(echo) }
  }

  /// A disposer of `q` (or `p`); its target is chosen among the observations before it.
  mutating func observeDisposer(onQ: Bool, target: Int) {
    let index = observers.count
    var observer = Observer(chain: .plain)
    observer.isDisposer = true
    observer.target = observers.isEmpty ? nil : target % observers.count
    observers.append(observer)
    if onQ {
      qOrder.append(index)
    } else {
      // p's replay is delivered to it at registration: each replayed event fires it too.
      for event in history.suffix(replayLength) { fireDisposer(index, event) }
      pOrder.append(index)
    }
  }

  mutating func dispose(_ index: Int) {
    guard !observers.isEmpty else { return }
    observers[index % observers.count].active = false
  }
}

/// The same program on the engine.
final class EngineRun {
  let producer: EventProducer<Int>
  let q = EventProducer<Int>()
  let outer = EventProducer<EventProducer<Int>>(replayLength: 1)
  var logs: [[Int]] = []
  var observations: [any DisposableType] = []

  init(replayLength: Int) { producer = EventProducer(replayLength: replayLength) }

  func observe(_ chain: Chain) {
    let slot = logs.count
    logs.append([])
    let record: (Int) -> Void = { [unowned self] in logs[slot].append($0) }
    let producer = self.producer
    let observation: any DisposableType
    switch chain {
    case .plain: observation = producer.observe(record)
    case .map: observation = producer.map { $0 * 3 }.observe(record)
    case .filter: observation = producer.filter { $0 % 2 == 0 }.observe(record)
    case .skip: observation = producer.skip(2).observe(record)
    case .distinct: observation = producer.distinct().observe(record)
    case .startWith: observation = producer.startWith(-1).observe(record)
    case .reduce: observation = producer.reduce(0, +).observe(record)
    case .observeNew: observation = producer.observeNew(record)
    case .combine: observation = combineLatest(producer, q).map { $0 * 10 + $1 }.observe(record)
    case .merge: observation = merge([producer, q]).observe(record)
    case .switchLatest: observation = outer.switchToLatest().observe(record)
    case .echo:
      observation = producer.observe { event in
        record(event)
        if event < echoLimit { producer.next(event + echoOffset) }
      }
    }
    observations.append(observation)
  }

  /// An observer of `q` (or `p`) that disposes another observation from inside its deliveries.
  func observeDisposer(onQ: Bool, target: Int) {
    let slot = logs.count
    logs.append([])
    let victim: (any DisposableType)? = observations.isEmpty ? nil : observations[target % observations.count]
    let source = onQ ? q : producer
    let observation = source.observe { [unowned self] event in
      logs[slot].append(event)
      victim?.dispose()
    }
    observations.append(observation)
  }

  func dispose(_ index: Int) {
    guard !observations.isEmpty else { return }
    observations[index % observations.count].dispose()
  }
}

@Suite struct ProducerModelTests {
  @Test func randomProgramsMatchTheModel() async {
    await propertyCheck(count: 2_000, input: Gen.int(in: 0...3), Gen.int(in: 0...599).array(of: 0...40)) {
      replay,
      codes in
      let steps = codes.map(Step.init(code:))
      var model = Model(replayLength: replay)
      let engine = EngineRun(replayLength: replay)
      for step in steps {
        switch step {
        case .send(let value):
          model.send(value)
          engine.producer.next(value)
        case .sendQ(let value):
          model.sendQ(value)
          engine.q.next(value)
        case .observe(let chain):
          model.observe(chain)
          engine.observe(chain)
        case .dispose(let index):
          model.dispose(index)
          engine.dispose(index)
        case .switchTo(let toQ):
          model.switchTo(toQ: toQ)
          engine.outer.next(toQ ? engine.q : engine.producer)
        case .disposer(let onQ, let target):
          model.observeDisposer(onQ: onQ, target: target)
          engine.observeDisposer(onQ: onQ, target: target)
        }
      }
      let expected = model.observers.map(\.log)
      #expect(engine.logs == expected, "replay \(replay), program: \(steps.map(\.description).joined(separator: "; "))")
      engine.observations.forEach { $0.dispose() }
      #expect(engine.producer.observerCount == 0 && engine.q.observerCount == 0)
    }
  }
}
