/// The result of ``EventProducer/from(_:)``: the elements of a sequence, then the end, for each
/// observer.
///
/// Cold: each observer gets its own run, during its `observe` call (on the observing thread): a
/// new iterator of `Elements`, each element in order, then `registered`, then `finished`. The
/// returned disposable is already disposed.
///
/// It stops pulling the sequence as soon as nobody downstream wants more: an operator that ends
/// early (`take`, `first()`, `take(while:)`, `contains`, `allSatisfy`) anywhere below it, through
/// the synchronous operators, ends the run, so `EventProducer.from(1...).map { $0 * 2 }.first()`
/// ends. `take(_:)`, `first()`, `take(while:)`, `contains(where:)`, `contains(_:)` and
/// `allSatisfy(_:)` applied to this type directly work on the sequence itself (as Combine's
/// `Publishers.Sequence` does).
/// - Note: thread-safe as far as `Elements` can be iterated from several threads at once (each
///   observation makes its own iterator).
public struct FromSequence<Elements: Sequence>: EventProducerType {
  /// The sequence each observer iterates.
  @usableFromInline let elements: Elements

  @inlinable
  init(elements: Elements) {
    self.elements = elements
  }

  /// The sequence's `underestimatedCount` (exact for a collection): the elements are delivered
  /// during registration.
  @inlinable
  public var replayLength: Int { elements.underestimatedCount }

  /// Delivers the elements, then `registered`, then the end, before returning.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Elements.Element>) -> any DisposableType {
    // Nobody downstream wants more once the observation it serves has ended early (`take`,
    // `first()`, ... anywhere below, through any synchronous operator): stop pulling then, so that
    // an infinite sequence ends.
    let lifetime = observer.lifetime
    for element in elements {
      if let lifetime, lifetime.isDisposed { break }
      observer.event(element)
    }
    return endedObservation(observer)
  }
}

extension FromSequence {
  /// The first `count` elements, then the end: ``EventProducerType/take(_:)`` applied to the
  /// sequence itself, so that no element after them is pulled (an infinite sequence ends).
  /// - Precondition: `count >= 0`.
  @inlinable
  public func take(_ count: Int) -> FromSequence<PrefixSequence<Elements>> {
    precondition(count >= 0, "take(_:): count must not be negative, got \(count)")
    return FromSequence<PrefixSequence<Elements>>(elements: elements.prefix(count))
  }

  /// The first element, then the end: `take(1)`.
  @inlinable
  public func first() -> FromSequence<PrefixSequence<Elements>> {
    FromSequence<PrefixSequence<Elements>>(elements: elements.prefix(1))
  }

  /// The elements while `predicate` holds, then the end: ``EventProducerType/take(while:)``
  /// applied to the sequence itself, so that nothing after the first failing element is pulled.
  @inlinable
  public func take(
    while predicate: @escaping (Elements.Element) -> Bool
  ) -> FromSequence<LazyPrefixWhileSequence<Elements>> {
    FromSequence<LazyPrefixWhileSequence<Elements>>(elements: elements.lazy.prefix(while: predicate))
  }

  /// ``EventProducerType/contains(where:)`` answered by the sequence itself, for each observer when
  /// it observes: the search stops at the first match, so an infinite sequence with a match ends.
  @inlinable
  public func contains(
    where predicate: @escaping (Elements.Element) -> Bool
  ) -> Deferred<FromSequence<CollectionOfOne<Bool>>> {
    answered { $0.contains(where: predicate) }
  }

  /// ``EventProducerType/allSatisfy(_:)`` answered by the sequence itself, for each observer when it
  /// observes: the check stops at the first failure, so an infinite sequence with one ends.
  @inlinable
  public func allSatisfy(
    _ predicate: @escaping (Elements.Element) -> Bool
  ) -> Deferred<FromSequence<CollectionOfOne<Bool>>> {
    answered { $0.allSatisfy(predicate) }
  }

  /// A producer that, for each observer when it observes, delivers `answer` of the sequence, then
  /// the end.
  @inlinable
  func answered(
    by answer: @escaping (Elements) -> Bool
  ) -> Deferred<FromSequence<CollectionOfOne<Bool>>> {
    let elements = self.elements
    return Deferred { FromSequence<CollectionOfOne<Bool>>(elements: CollectionOfOne(answer(elements))) }
  }
}

extension FromSequence where Elements.Element: Equatable {
  /// ``EventProducerType/contains(_:)`` answered by the sequence itself: `contains(where: { $0 == event })`.
  @inlinable
  public func contains(_ event: Elements.Element) -> Deferred<FromSequence<CollectionOfOne<Bool>>> {
    contains(where: { $0 == event })
  }
}

extension EventProducer {
  /// A cold producer of a sequence's elements: each observer receives every element, in order, then
  /// the end, during `observe` (Rx's `from`, Combine's `Publishers.Sequence`).
  ///
  /// ```swift
  /// EventProducer.from([1, 2, 3]).observe { print($0) } finished: { print("done") }   // 1, 2, 3, done
  /// ```
  /// - Parameter events: iterated once per observer, from a new iterator.
  /// - Returns: a producer whose `replayLength` is the sequence's `underestimatedCount`.
  @inlinable
  public static func from<Elements: Sequence>(_ events: Elements) -> FromSequence<Elements>
  where Elements.Element == Event {
    FromSequence(elements: events)
  }
}
