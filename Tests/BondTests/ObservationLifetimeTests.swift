@testable import Bond
import BondTesting
import Dispatch
import Foundation
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
  struct Entry: Sendable, CustomTestStringConvertible {
    let name: String
    let observe:
      @Sendable (
        _ source: EventProducer<Int>, _ other: EventProducer<Int>, _ observer: @escaping @Sendable () -> Void
      ) -> any DisposableType
    var testDescription: String { name }
  }

  static let entries: [Entry] = [
    Entry(name: "observe") { source, _, observer in source.observe { _ in observer() } },
    Entry(name: "map") { source, _, observer in source.map { $0 + 1 }.observe { _ in observer() } },
    Entry(name: "filter") { source, _, observer in source.filter { $0 > 0 }.observe { _ in observer() } },
    Entry(name: "compactMap") { source, _, observer in source.compactMap { $0 }.observe { _ in observer() } },
    Entry(name: "scan") { source, _, observer in source.scan(0, +).observe { _ in observer() } },
    Entry(name: "distinct") { source, _, observer in source.distinct().observe { _ in observer() } },
    Entry(name: "skip") { source, _, observer in source.skip(1).observe { _ in observer() } },
    Entry(name: "take") { source, _, observer in source.take(100).observe { _ in observer() } },
    Entry(name: "take(while:)") { source, _, observer in source.take(while: { $0 < 100 }).observe { _ in observer() } },
    Entry(name: "take(until:)") { source, other, observer in source.take(until: other).observe { _ in observer() } },
    Entry(name: "pairwise") { source, _, observer in source.pairwise().observe { _ in observer() } },
    Entry(name: "startWith") { source, _, observer in source.startWith(0).observe { _ in observer() } },
    Entry(name: "collect(count:)") { source, _, observer in source.collect(count: 2).observe { _ in observer() } },
    Entry(name: "count") { source, _, observer in source.count().observe { _ in observer() } },
    Entry(name: "append") { source, other, observer in source.append(other).observe { _ in observer() } },
    Entry(name: "combineLatestWith") { source, other, observer in
      source.combineLatestWith(other).observe { _ in observer() }
    },
    Entry(name: "zipWith") { source, other, observer in source.zipWith(other).observe { _ in observer() } },
    Entry(name: "withLatestFrom") { source, other, observer in
      source.withLatestFrom(other).observe { _ in observer() }
    },
    Entry(name: "merge") { source, other, observer in merge([source, other]).observe { _ in observer() } },
    Entry(name: "groupBy") { source, _, observer in source.groupBy { $0 % 2 }.observe { _ in observer() } },
    Entry(name: "share") { source, _, observer in source.share().observe { _ in observer() } },
    Entry(name: "deliverOn(DispatchQueue)") { source, _, observer in
      source.deliverOn(DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "deliverOn(DedicatedThreadScheduler)") { source, _, observer in
      source.deliverOn(DedicatedThreadScheduler()).observe { _ in observer() }
    },
    Entry(name: "rewrite") { source, _, observer in source.rewrite(0).observe { _ in observer() } },
    Entry(name: "skip(while:)") { source, _, observer in source.skip(while: { $0 < 2 }).observe { _ in observer() } },
    Entry(name: "distinct(by:)") { source, _, observer in source.distinct(by: ==).observe { _ in observer() } },
    Entry(name: "reduce") { source, _, observer in source.reduce(0, +).observe { _ in observer() } },
    Entry(name: "last") { source, _, observer in source.last().observe { _ in observer() } },
    Entry(name: "min") { source, _, observer in source.min().observe { _ in observer() } },
    Entry(name: "contains(where:)") { source, _, observer in
      source.contains(where: { $0 > 100 }).observe { _ in observer() }
    },
    Entry(name: "allSatisfy") { source, _, observer in source.allSatisfy { $0 < 100 }.observe { _ in observer() } },
    Entry(name: "observeNew") { source, _, observer in source.observeNew { _ in observer() } },
    Entry(name: "eraseToAnyEventProducer") { source, _, observer in
      source.eraseToAnyEventProducer().observe { _ in observer() }
    },
    Entry(name: "sample") { source, other, observer in source.sample(other).observe { _ in observer() } },
    Entry(name: "flatMap(.merge)") { source, other, observer in
      source.flatMap(.merge) { _ in other }.observe { _ in observer() }
    },
    Entry(name: "flatMap(.latest)") { source, other, observer in
      source.flatMap(.latest) { _ in other }.observe { _ in observer() }
    },
    Entry(name: "throttle(for:scheduler:)") { source, _, observer in
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
    Entry(name: "batches(on:)") { source, _, observer in
      source.batches(on: DispatchQueue(label: "lifetime")).observe { _ in observer() }
    },
    Entry(name: "deliverOn(_:bufferLimit:)") { source, _, observer in
      source.deliverOn(DispatchQueue(label: "lifetime"), bufferLimit: 16).observe { _ in observer() }
    },
    Entry(name: "map(maxConcurrent:)") { source, _, observer in
      source.map(maxConcurrent: 2) { $0 }.observe { _ in observer() }
    },
    Entry(name: "mapUnordered") { source, _, observer in
      source.mapUnordered(maxConcurrent: 2) { $0 }.observe { _ in observer() }
    },
    Entry(name: "tryMap") { source, _, observer in
      source.tryMap(maxConcurrent: 2) { $0 }.observe { _ in observer() }
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

  @Test(arguments: entries)
  func theEndReleasesTheObserverWhileTheDisposableIsKept(_ entry: Entry) {
    let (source, other, disposable, released) = Self.observeAndSend(entry)
    other.finish()
    source.finish()
    #expect(Self.eventually { disposable.isDisposed }, "\(entry.name): not disposed after the end")
    #expect(Self.eventually(released), "\(entry.name): the observer's closure was kept after the end")
    withExtendedLifetime((disposable, source, other)) {}
  }
}
