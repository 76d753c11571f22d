@testable import Bond
import BondTesting
import Dispatch
import Foundation
import Synchronization
import Testing

/// The lifetime of an observation, operator by operator: the observer's closure captures a token,
/// and the user keeps the disposable. (a) After `dispose()` the token is released; (b) after the
/// upstream's end the token is released and the observation reports `isDisposed` (guarantee 6 and
/// the finite-streams rule). Released means: once the parties that keep a stage working (the
/// upstream's observation, a scheduler, worker tasks) have let it go, which the test waits for.
@Suite struct ObservationLifetimeTests {
  /// An object whose release the test watches.
  final class Token: Sendable {}

  /// One operator or stage, observed from `source` (and `other`, for those of two sources) with
  /// `observer`.
  ///
  /// `name` is the operator's symbol as `api/public-api.txt` spells it (`take(until:)`,
  /// `EventProducer.just(_:)`, `zip` for a free function and its arity overloads), optionally
  /// followed by a space and what this entry varies (a scheduler): ``everyPublicOperatorAndStageIsListed()``
  /// matches the table against that file. `neverEnds` names why (b) does not apply, for the few that
  /// end on no upstream's end.
  struct Entry: Sendable, CustomTestStringConvertible {
    let name: String
    var neverEnds: String?
    let observe:
      @Sendable (
        _ source: EventProducer<Int>, _ other: EventProducer<Int>, _ observer: @escaping @Sendable () -> Void
      ) -> any DisposableType
    init(
      name: String,
      neverEnds: String? = nil,
      observe:
        @escaping @Sendable (
          _ source: EventProducer<Int>, _ other: EventProducer<Int>, _ observer: @escaping @Sendable () -> Void
        ) -> any DisposableType
    ) {
      self.name = name
      self.neverEnds = neverEnds
      self.observe = observe
    }
    var testDescription: String { name }
  }

  static let entries: [Entry] = [
    Entry(name: "observe(_:)") { source, _, observer in source.observe { _ in observer() } },
    Entry(name: "map(_:)") { source, _, observer in source.map { $0 + 1 }.observe { _ in observer() } },
    Entry(name: "filter(_:)") { source, _, observer in source.filter { $0 > 0 }.observe { _ in observer() } },
    Entry(name: "compactMap(_:)") { source, _, observer in source.compactMap { $0 }.observe { _ in observer() } },
    Entry(name: "scan(_:_:)") { source, _, observer in source.scan(0, +).observe { _ in observer() } },
    Entry(name: "distinct()") { source, _, observer in source.distinct().observe { _ in observer() } },
    Entry(name: "skip(_:)") { source, _, observer in source.skip(1).observe { _ in observer() } },
    Entry(name: "take(_:)") { source, _, observer in source.take(100).observe { _ in observer() } },
    Entry(name: "take(while:)") { source, _, observer in source.take(while: { $0 < 100 }).observe { _ in observer() } },
    Entry(name: "take(until:)") { source, other, observer in source.take(until: other).observe { _ in observer() } },
    Entry(name: "pairwise()") { source, _, observer in source.pairwise().observe { _ in observer() } },
    Entry(name: "startWith(_:)") { source, _, observer in source.startWith(0).observe { _ in observer() } },
    Entry(name: "collect(count:)") { source, _, observer in source.collect(count: 2).observe { _ in observer() } },
    Entry(name: "count()") { source, _, observer in source.count().observe { _ in observer() } },
    Entry(name: "append(_:)") { source, other, observer in source.append(other).observe { _ in observer() } },
    Entry(name: "combineLatestWith(_:)") { source, other, observer in
      source.combineLatestWith(other).observe { _ in observer() }
    },
    Entry(name: "zipWith(_:)") { source, other, observer in source.zipWith(other).observe { _ in observer() } },
    Entry(name: "withLatestFrom(_:)") { source, other, observer in
      source.withLatestFrom(other).observe { _ in observer() }
    },
    Entry(name: "merge") { source, other, observer in merge([source, other]).observe { _ in observer() } },
    Entry(name: "groupBy(maxGroups:_:)") { source, _, observer in source.groupBy { $0 % 2 }.observe { _ in observer() }
    },
    Entry(name: "share(replayLength:)") { source, _, observer in source.share().observe { _ in observer() } },
    Entry(name: "deliverOn(_:) on DispatchQueue") { source, _, observer in
      source.deliverOn(DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "deliverOn(_:) on DedicatedThreadScheduler") { source, _, observer in
      source.deliverOn(DedicatedThreadScheduler()).observe { _ in observer() }
    },
    Entry(name: "rewrite(_:)") { source, _, observer in source.rewrite(0).observe { _ in observer() } },
    Entry(name: "skip(while:)") { source, _, observer in source.skip(while: { $0 < 2 }).observe { _ in observer() } },
    Entry(name: "distinct(by:)") { source, _, observer in source.distinct(by: ==).observe { _ in observer() } },
    Entry(name: "reduce(_:_:)") { source, _, observer in source.reduce(0, +).observe { _ in observer() } },
    Entry(name: "last()") { source, _, observer in source.last().observe { _ in observer() } },
    Entry(name: "min()") { source, _, observer in source.min().observe { _ in observer() } },
    Entry(name: "contains(where:)") { source, _, observer in
      source.contains(where: { $0 > 100 }).observe { _ in observer() }
    },
    Entry(name: "allSatisfy(_:)") { source, _, observer in source.allSatisfy { $0 < 100 }.observe { _ in observer() } },
    Entry(name: "observeNew(_:)") { source, _, observer in source.observeNew { _ in observer() } },
    Entry(name: "eraseToAnyEventProducer()") { source, _, observer in
      source.eraseToAnyEventProducer().observe { _ in observer() }
    },
    Entry(name: "sample(_:)") { source, other, observer in source.sample(other).observe { _ in observer() } },
    Entry(name: "flatMap(_:_:) .merge") { source, other, observer in
      source.flatMap(.merge) { _ in other }.observe { _ in observer() }
    },
    Entry(name: "flatMap(_:_:) .latest") { source, other, observer in
      source.flatMap(.latest) { _ in other }.observe { _ in observer() }
    },
    Entry(name: "throttle(for:scheduler:mode:)") { source, _, observer in
      source.throttle(for: .milliseconds(1), scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "debounce(for:scheduler:)") { source, _, observer in
      source.debounce(for: .milliseconds(1), scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "delay(for:scheduler:)") { source, _, observer in
      source.delay(for: .milliseconds(1), scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "timeout(for:scheduler:)") { source, _, observer in
      source.timeout(for: .seconds(600), scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "collect(count:orEvery:scheduler:)") { source, _, observer in
      source.collect(count: 2, orEvery: .seconds(600), scheduler: DispatchQueue(label: "lifetime"))
        .observe { _ in observer() }
    },
    Entry(name: "batches(on:maxCount:)") { source, _, observer in
      source.batches(on: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "deliverOn(_:bufferLimit:whenFull:statistics:)") { source, _, observer in
      source.deliverOn(DispatchQueue(label: "lifetime"), bufferLimit: 16).observe { _ in observer() }
    },
    Entry(name: "map(maxConcurrent:bufferLimit:statistics:_:)") { source, _, observer in
      source.map(maxConcurrent: 2) { $0 }.observe { _ in observer() }
    },
    Entry(name: "mapUnordered(maxConcurrent:bufferLimit:statistics:_:)") { source, _, observer in
      source.mapUnordered(maxConcurrent: 2) { $0 }.observe { _ in observer() }
    },
    Entry(name: "tryMap(maxConcurrent:bufferLimit:statistics:_:)") { source, _, observer in
      source.tryMap(maxConcurrent: 2) { $0 }.observe { _ in observer() }
    },
    Entry(name: "observe(_:finished:)") { source, _, observer in source.observe({ _ in observer() }, finished: {}) },
    Entry(name: "observe(_:registered:)") { source, _, observer in source.observe({ _ in observer() }, registered: {})
    },
    Entry(name: "observe(with:)") { source, _, observer in
      source.observe(with: EventObserver { _ in observer() })
    },
    Entry(name: "observeNew(_:finished:)") { source, _, observer in
      source.observeNew({ _ in observer() }, finished: {})
    },
    Entry(name: "observeNew(with:)") { source, _, observer in
      source.observeNew(with: EventObserver { _ in observer() })
    },
    Entry(name: "log(_:to:)") { source, _, observer in source.log("lifetime", to: { _ in }).observe { _ in observer() }
    },
    Entry(name: "ignoreNil()") { source, _, observer in
      source.map { Optional($0) }.ignoreNil().observe { _ in observer() }
    },
    Entry(name: "collect()") { source, _, observer in source.collect().observe { _ in observer() } },
    Entry(name: "first()") { source, _, observer in source.first().observe { _ in observer() } },
    Entry(name: "max()") { source, _, observer in source.max().observe { _ in observer() } },
    Entry(name: "max(by:)") { source, _, observer in source.max(by: <).observe { _ in observer() } },
    Entry(name: "min(by:)") { source, _, observer in source.min(by: <).observe { _ in observer() } },
    Entry(name: "contains(_:)") { source, _, observer in source.contains(1_000).observe { _ in observer() } },
    Entry(name: "merge()") { source, other, observer in source.map { _ in other }.merge().observe { _ in observer() } },
    Entry(name: "merge(maxConcurrent:)") { source, other, observer in
      source.map { _ in other }.merge(maxConcurrent: 1).observe { _ in observer() }
    },
    Entry(name: "concat()") { source, other, observer in source.map { _ in other }.concat().observe { _ in observer() }
    },
    Entry(name: "switchToLatest()") { source, other, observer in
      source.map { _ in other }.switchToLatest().observe { _ in observer() }
    },
    Entry(name: "merge of existentials") { source, other, observer in
      merge([source as any EventProducerType<Int>, other]).observe { _ in observer() }
    },
    Entry(name: "combineLatest") { source, other, observer in combineLatest(source, other).observe { _ in observer() }
    },
    Entry(name: "zip") { source, other, observer in zip(source, other).observe { _ in observer() } },
    Entry(name: "race") { source, other, observer in race([source, other]).observe { _ in observer() } },
    Entry(name: "timeout(for:scheduler:sending:)") { source, _, observer in
      source.timeout(for: .seconds(600), scheduler: DispatchQueue(label: "lifetime"), sending: 0)
        .observe { _ in observer() }
    },
    Entry(name: "throttle(seconds:scheduler:mode:)") { source, _, observer in
      source.throttle(seconds: 0.001, scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "debounce(seconds:scheduler:)") { source, _, observer in
      source.debounce(seconds: 0.001, scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "delay(seconds:scheduler:)") { source, _, observer in
      source.delay(seconds: 0.001, scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "timeout(seconds:scheduler:)") { source, _, observer in
      source.timeout(seconds: 600, scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "timeout(seconds:scheduler:sending:)") { source, _, observer in
      source.timeout(seconds: 600, scheduler: DispatchQueue(label: "lifetime"), sending: 0).observe { _ in observer() }
    },
    Entry(name: "collect(count:orEvery:scheduler:) in seconds") { source, _, observer in
      source.collect(count: 2, orEvery: 600.0, scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "batches(on:maxCount:bufferLimit:whenFull:statistics:)") { source, _, observer in
      source.batches(on: DispatchQueue(label: "lifetime"), bufferLimit: 16).observe { _ in observer() }
    },
    Entry(name: "partition(lanes:by:)") { source, _, observer in
      source.partition(lanes: 2) { $0 % 2 }.lanes[0].observe { _ in observer() }
    },
    Entry(name: "partition(lanes:bufferLimit:whenFull:statistics:by:)") { source, _, observer in
      source.partition(lanes: 2, bufferLimit: 16, whenFull: .backpressure) { $0 % 2 }.lanes[1]
        .observe { _ in observer() }
    },
    Entry(name: "partition(lanes:bufferLimit:whenFull:statistics:on:by:)") { source, _, observer in
      source.partition(lanes: 2, on: [DispatchQueue(label: "lifetime"), DispatchQueue(label: "lifetime")]) { $0 % 2 }
        .lanes[0]
        .observe { _ in observer() }
    },
    Entry(name: "filterElements(_:)") { source, _, observer in
      source.map { ObservableArrayEvent(sequence: [$0], operation: .reset(array: [$0])) }
        .filterElements { $0 > 0 }.observe { _ in observer() }
    },
    Entry(name: "mapElements(_:)") { source, _, observer in
      source.map { ObservableArrayEvent(sequence: [$0], operation: .reset(array: [$0])) }
        .mapElements { $0 + 1 }.observe { _ in observer() }
    },
    Entry(name: "EventProducer.deferred(_:)") { source, _, observer in
      EventProducer<Int>.deferred { source }.observe { _ in observer() }
    },
    Entry(name: "EventProducer.just(_:)") { _, _, observer in EventProducer.just(1).observe { _ in observer() } },
    Entry(name: "EventProducer.from(_:)") { _, _, observer in EventProducer.from([1, 2]).observe { _ in observer() } },
    Entry(name: "EventProducer.empty()") { _, _, observer in
      EventProducer<Int>.empty().observe({ _ in observer() }, finished: { observer() })
    },
    Entry(name: "EventProducer.never()", neverEnds: "it has no end to send") { _, _, observer in
      EventProducer<Int>.never().observe { _ in observer() }
    },
    Entry(name: "EventProducer.timer(after:scheduler:)") { _, _, observer in
      EventProducer<Int>.timer(after: .milliseconds(1), scheduler: DispatchQueue(label: "lifetime"))
        .observe { _ in observer() }
    },
    Entry(name: "EventProducer.timer(after:scheduler:) in seconds") { _, _, observer in
      EventProducer<Int>.timer(after: 0.001, scheduler: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "EventProducer.interval(every:scheduler:)", neverEnds: "a tick stream ends only when disposed") {
      _,
      _,
      observer in
      EventProducer<Int>.interval(every: .milliseconds(1), scheduler: DispatchQueue(label: "lifetime"))
        .observe { _ in observer() }
    },
    Entry(name: "EventProducer.interval(seconds:scheduler:)", neverEnds: "a tick stream ends only when disposed") {
      _,
      _,
      observer in
      EventProducer<Int>.interval(seconds: 0.001, scheduler: DispatchQueue(label: "lifetime"))
        .observe { _ in observer() }
    },
    Entry(
      name: "ObservableArray.sectionedChanges()",
      neverEnds: "an ObservableArray has no end"
    ) { source, _, observer in
      let sections = ObservableArray([ObservableArray([1])])
      let inner = source.observe { sections[0].append($0) }
      let outer = sections.sectionedChanges().observe { _ in observer() }
      return BlockDisposable {
        outer.dispose()
        inner.dispose()
        withExtendedLifetime(sections) {}
      }
    },
  ]

  /// Observes through `entry` with a closure that captures a token; returns the disposable and a
  /// weak reference to the token.
  static func observe(
    _ entry: Entry,
    _ source: EventProducer<Int>,
    _ other: EventProducer<Int>
  ) -> (any DisposableType, () -> Bool) {
    let token = Token()
    weak let weakToken = token
    let disposable = entry.observe(source, other) { _ = token }
    return (disposable, { weakToken == nil })
  }

  /// Waits (bounded) for `condition`, which another thread may bring about.
  static func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(60)
    while !condition() {
      if Date() > deadline { return false }
      usleep(500)
    }
    return true
  }

  /// Observes through `entry` and sends three events into each source.
  static func observeAndSend(
    _ entry: Entry
  ) -> (source: EventProducer<Int>, other: EventProducer<Int>, disposable: any DisposableType, released: () -> Bool) {
    let source = EventProducer<Int>()
    let other = EventProducer<Int>()
    let (disposable, released) = observe(entry, source, other)
    for value in 1...3 {
      source.next(value)
      other.next(value)
    }
    return (source, other, disposable, released)
  }

  @Test(arguments: entries)
  func disposingReleasesTheObserverWhileTheDisposableIsKept(_ entry: Entry) {
    let (source, other, disposable, released) = Self.observeAndSend(entry)
    disposable.dispose()
    #expect(disposable.isDisposed)
    #expect(Self.eventually(released), "\(entry.name): the observer's closure was kept after dispose()")
    withExtendedLifetime((disposable, source, other)) {}
  }

  @Test(arguments: entries.filter { $0.neverEnds == nil })
  func theEndReleasesTheObserverWhileTheDisposableIsKept(_ entry: Entry) {
    let (source, other, disposable, released) = Self.observeAndSend(entry)
    other.finish()
    source.finish()
    #expect(Self.eventually { disposable.isDisposed }, "\(entry.name): not disposed after the end")
    #expect(Self.eventually(released), "\(entry.name): the observer's closure was kept after the end")
    withExtendedLifetime((disposable, source, other)) {}
  }

  /// The public symbols that observe or make a producer but are not operators or stages, and why.
  static let notOperators: [String: String] = [
    "bindTo(_:)": "a binding: it ends in a target, held weakly (BindingTests: a released target)",
    "bindTo(_:_:)": "a binding: it ends in a key path of an object, held weakly (BindingTests)",
    "bidirectionalBindTo(_:)": "a binding of two sides, each held weakly (BindingTests)",
    "values(bufferLimit:whenFull:)": "an AsyncSequence: its iterator, not a disposable, owns the observation",
    "values(bufferingPolicy:)": "an AsyncSequence: its iterator, not a disposable, owns the observation",
    "batchedValues(maxCount:bufferLimit:whenFull:)": "an AsyncSequence: its iterator owns the observation",
  ]

  /// The operators and stages of the public API, as `api/public-api.txt` (the CI's record of it)
  /// lists them: the members of `EventProducerType`, the static makers of `EventProducer`, the free
  /// functions, and `ObservableArray.sectionedChanges()`; deprecated spellings left out (they forward).
  static func publicOperators() throws -> Set<String> {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../api/public-api.txt").standardized
    var symbols = Set<String>()
    for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
      guard line.hasPrefix("Bond: "), !line.contains("deprecated") else { continue }
      let rest = line.dropFirst("Bond: ".count)
      guard let colon = rest.range(of: ": ") else { continue }
      let path = String(rest[..<colon.lowerBound])
      let declaration = rest[colon.upperBound...]
      if path.hasPrefix("EventProducerType."), declaration.contains("func ") {
        symbols.insert(String(path.dropFirst("EventProducerType.".count)))
      } else if path.hasPrefix("EventProducer."), declaration.hasPrefix("static func ") {
        symbols.insert(path)
      } else if path == "ObservableArray.sectionedChanges()" {
        symbols.insert(path)
      } else if let first = path.first, first.isLetter, !path.contains("."), declaration.hasPrefix("func ") {
        // A free function: the arity overloads of one operator share its engine.
        symbols.insert(String(path.prefix { $0 != "(" }))
      }
    }
    return symbols
  }

  /// The table is complete: every public operator and stage has an entry (or is named in
  /// ``notOperators`` with its reason), and every entry names a symbol that exists.
  @Test func everyPublicOperatorAndStageIsListed() throws {
    let operators = try Self.publicOperators()
    #expect(operators.count > 80, "api/public-api.txt was not read as expected")
    let listed = Set(Self.entries.map { String($0.name.prefix { $0 != " " }) })
    let missing = operators.subtracting(listed).subtracting(Self.notOperators.keys).sorted()
    #expect(missing.isEmpty, "operators with no lifetime entry: \(missing)")
    let unknown = listed.union(Self.notOperators.keys).subtracting(operators).sorted()
    #expect(unknown.isEmpty, "entries that name no public operator: \(unknown)")
  }

  /// (a) and (b) again, while another thread floods both sources: the dispose or the end races
  /// deliveries in flight. Run by CI under ThreadSanitizer (its filter names this suite).
  @Test(arguments: entries)
  func disposingMidFloodReleasesTheObserver(_ entry: Entry) {
    Self.underFlood(entry) { _, _, disposable in disposable.dispose() }
  }

  @Test(arguments: entries.filter { $0.neverEnds == nil })
  func theEndMidFloodReleasesTheObserver(_ entry: Entry) {
    Self.underFlood(entry) { source, other, _ in
      other.finish()
      source.finish()
    }
  }

  /// Observes through `entry`, starts a thread that sends into both sources until told to stop,
  /// waits until it has sent some, runs `cut` (a dispose or the end) on this thread, stops the flood,
  /// then expects the observation disposed and the token released.
  static func underFlood(
    _ entry: Entry,
    _ cut: (EventProducer<Int>, EventProducer<Int>, any DisposableType) -> Void
  ) {
    let source = EventProducer<Int>()
    let other = EventProducer<Int>()
    let (disposable, released) = observe(entry, source, other)
    let sent = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
    let flood = Thread {
      var value = 0
      // relaxed: a flag and a count read by the test to pace itself; nothing is published with them.
      while !stop.load(ordering: .relaxed) {
        value += 1
        source.next(value)
        other.next(value)
        sent.store(value, ordering: .relaxed)
      }
    }
    flood.start()
    #expect(eventually { sent.load(ordering: .relaxed) >= 100 }, "\(entry.name): the flood did not start")
    cut(source, other, disposable)
    stop.store(true, ordering: .relaxed)
    #expect(eventually { disposable.isDisposed }, "\(entry.name): not disposed")
    #expect(eventually(released), "\(entry.name): the observer's closure was kept")
    withExtendedLifetime((disposable, source, other, flood)) {}
  }
}
