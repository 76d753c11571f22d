import Dispatch
import Synchronization

/// An array that tells its observers how it changed: every mutation sends an
/// ``ObservableArrayEvent`` with the ``ObservableArrayOperation`` applied (insert, update, remove,
/// reset, batch) and the array after it.
///
/// ```swift
/// let names = ObservableArray(["Jim", "Spock"])
/// names.observe { event in print(event.operation) }  // .reset(array: ["Jim", "Spock"]) (the replay)
/// names.append("Scotty")                              // .insert(elements: ["Scotty"], fromIndex: 2)
/// names[0] = "Uhura"                                  // .update(elements: ["Uhura"], fromIndex: 0)
/// names.performBatchUpdates { names in                // one .batch([...]) event
///   names.insert("Jim", at: 0)
///   names.removeLast()
/// }
/// ```
///
/// It is not a `Collection` (its `map` and `filter` are the producer's operators): read it through
/// ``array``, ``count``, ``isEmpty``, ``first``, ``last`` and the subscript. A new observer first
/// receives a `.reset` of the current array (``replayLength`` is 1), then every later event.
///
/// Bad indices stop the program with a message naming the call, like `Array` does
/// (`"ObservableArray.remove(at:): index 3 is out of range 0..<2"`); nothing is changed or sent.
///
/// - Note: thread-safe. Every mutating call is atomic: the array is changed and its event queued in
///   one critical section, so observers receive the events in the order the mutations happened,
///   and a mirror rebuilt from the events (``ObservableArrayOperation/apply(to:)``) always equals
///   the array. Delivery keeps the guarantees of ``EventProducer``: lossless, serialized (observers
///   are never called concurrently), a mutation from inside an observer is delivered after the
///   current event, and no delivery starts after `dispose()` returns. Observers are called outside
///   every lock. ``performBatchUpdates(_:)`` holds the array for the whole closure: other threads'
///   mutations wait for it to end, and their reads see the array as it was before the batch.
public final class ObservableArray<Element>: EventProducerType {
  /// The events an observable array sends.
  public typealias Event = ObservableArrayEvent<Element>

  @usableFromInline let state: LockedState<ObservableArrayState<Element>>
  /// Delivers the events (and each observation's replay) with the engine's guarantees.
  @usableFromInline let delivery = EventProducer<ObservableArrayDelivery<Element>>()
  /// Held by the thread running a batch; another thread that wants to mutate waits on it.
  @usableFromInline let batchGate = DispatchSemaphore(value: 1)
  /// Identifies observations, so each picks its own replay out of the delivery stream.
  @usableFromInline let tokens = Atomic<Int>(0)
  /// Who hands events off: the engine's one serializer (`Core/DeliveryRights.swift`), counting work
  /// queued in `state.outbox` or being performed. Whoever takes them (under the state lock, in the
  /// critical section that records its mutation) is the hand-off thread until the count is back to 0
  /// or it hands the rest to a worker.
  @usableFromInline let handOffRights = DeliveryRights()
  /// The hand-off thread's batch, swapped out of `state.outbox` in one lock.
  @exclusivity(unchecked) @usableFromInline var handOffBatch = WorkQueue<SentWork<ObservableArrayWork<Element>>>()
  /// The array as of the last operation handed to `delivery`: the events' `sequence`. Owned by the
  /// hand-off thread, which `handOffRights` hands from one thread to the next.
  @exclusivity(unchecked) @usableFromInline var delivered: [Element]
  /// Debug builds: stops if two threads run the hand-off loop at once (``delivered``'s rule).
  @usableFromInline let handOffAccess = SerialAccessCheck()

  /// Creates an observable array holding `array`.
  public init(_ array: [Element] = []) {
    state = LockedState(ObservableArrayState(array: array))
    delivered = array
  }

  /// 1: a new observer first receives a `.reset` of the current array.
  public var replayLength: Int { 1 }

  /// The number of observations that are registered and not disposed.
  public var observerCount: Int { delivery.observerCount }

  // MARK: - Reading

  /// The elements. Setting it replaces them all and sends a `.reset`.
  ///
  /// While another thread runs ``performBatchUpdates(_:)``, reading gives the array as it was
  /// before that batch.
  @inlinable
  public var array: [Element] {
    get { read { $0 } }
    set {
      let old = mutate { array -> ([Element], ObservableArrayOperation<Element>) in
        let old = array
        array = newValue
        return (old, .reset(array: newValue))
      }
      _ = old  // released outside the lock: an element's deinit may run user code
    }
  }

  /// The number of elements.
  @inlinable
  public var count: Int { read { $0.count } }

  /// Whether the array is empty.
  @inlinable
  public var isEmpty: Bool { read { $0.isEmpty } }

  /// The first element, or `nil` when the array is empty.
  @inlinable
  public var first: Element? { read { $0.first } }

  /// The last element, or `nil` when the array is empty.
  @inlinable
  public var last: Element? { read { $0.last } }

  /// The element at `index`. Setting it sends an `.update` of that one element.
  /// - Precondition: `0 <= index < count`.
  @inlinable
  public subscript(index: Int) -> Element {
    get {
      read { array in
        precondition(
          index >= 0 && index < array.count,
          "ObservableArray[_:]: index \(index) is out of range 0..<\(array.count)"
        )
        return array[index]
      }
    }
    set {
      let old = mutate { array -> (Element, ObservableArrayOperation<Element>) in
        precondition(
          index >= 0 && index < array.count,
          "ObservableArray[_:]: index \(index) is out of range 0..<\(array.count)"
        )
        let old = array[index]
        array[index] = newValue
        return (old, .update(elements: [newValue], fromIndex: index))
      }
      _ = old  // released outside the lock
    }
  }

  // MARK: - Mutating

  /// Appends `element` and sends `.insert(elements: [element], fromIndex: count)`.
  @inlinable
  public func append(_ element: Element) {
    mutate { array -> ((), ObservableArrayOperation<Element>) in
      let index = array.count
      array.append(element)
      return ((), .insert(elements: [element], fromIndex: index))
    }
  }

  /// Appends `elements` and sends one `.insert`.
  @inlinable
  public func append(contentsOf elements: [Element]) {
    mutate { array -> ((), ObservableArrayOperation<Element>) in
      let index = array.count
      array.append(contentsOf: elements)
      return ((), .insert(elements: elements, fromIndex: index))
    }
  }

  /// Inserts `element` at `index` and sends an `.insert`.
  /// - Precondition: `0 <= index <= count`.
  @inlinable
  public func insert(_ element: Element, at index: Int) {
    mutate { array -> ((), ObservableArrayOperation<Element>) in
      precondition(
        index >= 0 && index <= array.count,
        "ObservableArray.insert(_:at:): index \(index) is out of range 0...\(array.count)"
      )
      array.insert(element, at: index)
      return ((), .insert(elements: [element], fromIndex: index))
    }
  }

  /// Inserts `elements` at `index` and sends one `.insert`.
  /// - Precondition: `0 <= index <= count`.
  @inlinable
  public func insert(contentsOf elements: [Element], at index: Int) {
    mutate { array -> ((), ObservableArrayOperation<Element>) in
      precondition(
        index >= 0 && index <= array.count,
        "ObservableArray.insert(contentsOf:at:): index \(index) is out of range 0...\(array.count)"
      )
      array.insert(contentsOf: elements, at: index)
      return ((), .insert(elements: elements, fromIndex: index))
    }
  }

  /// Removes and returns the element at `index`; sends `.remove(range: index..<index + 1)`.
  /// - Precondition: `0 <= index < count`.
  @inlinable
  @discardableResult
  public func remove(at index: Int) -> Element {
    mutate { array -> (Element, ObservableArrayOperation<Element>) in
      precondition(
        index >= 0 && index < array.count,
        "ObservableArray.remove(at:): index \(index) is out of range 0..<\(array.count)"
      )
      return (array.remove(at: index), .remove(range: index..<index + 1))
    }
  }

  /// Removes and returns the last element; sends a `.remove` of its index.
  /// - Precondition: the array is not empty.
  @inlinable
  @discardableResult
  public func removeLast() -> Element {
    mutate { array -> (Element, ObservableArrayOperation<Element>) in
      precondition(!array.isEmpty, "ObservableArray.removeLast(): the array is empty")
      let index = array.count - 1
      return (array.removeLast(), .remove(range: index..<index + 1))
    }
  }

  /// Removes the elements in `range` and sends one `.remove(range:)`.
  /// - Precondition: `range` lies within `0..<count`.
  @inlinable
  public func removeSubrange(_ range: Range<Int>) {
    let removed = mutate { array -> ([Element], ObservableArrayOperation<Element>) in
      precondition(
        range.lowerBound >= 0 && range.upperBound <= array.count,
        "ObservableArray.removeSubrange(_:): range \(range) is out of range 0..<\(array.count)"
      )
      let removed = Array(array[range])
      array.removeSubrange(range)
      return (removed, .remove(range: range))
    }
    _ = removed  // released outside the lock
  }

  /// Removes every element and sends `.remove(range: 0..<count)`.
  @inlinable
  public func removeAll() {
    let removed = mutate { array -> ([Element], ObservableArrayOperation<Element>) in
      let removed = array
      array = []
      return (removed, .remove(range: 0..<removed.count))
    }
    _ = removed  // released outside the lock
  }

  /// Replaces the elements in `range` with `elements` and sends one event: an `.update` of the
  /// overlapping positions, followed (in a `.batch`) by an `.insert` of the extra new elements or
  /// a `.remove` of the extra old ones; a plain `.insert` or `.remove` when one side is empty.
  /// - Precondition: `range` lies within `0..<count`.
  @inlinable
  public func replaceSubrange(_ range: Range<Int>, with elements: [Element]) {
    let removed = mutate { array -> ([Element], ObservableArrayOperation<Element>) in
      precondition(
        range.lowerBound >= 0 && range.upperBound <= array.count,
        "ObservableArray.replaceSubrange(_:with:): range \(range) is out of range 0..<\(array.count)"
      )
      let removed = Array(array[range])
      array.replaceSubrange(range, with: elements)
      return (removed, ObservableArrayOperation.replacing(range, with: elements))
    }
    _ = removed  // released outside the lock
  }

  /// Returns a two-dimensional observable array whose only element is this array: the shape that
  /// sectioned list views take (see ``ObservableArray/sectionedChanges()``).
  public func lift() -> ObservableArray<ObservableArray<Element>> {
    ObservableArray<ObservableArray<Element>>([self])
  }

  // MARK: - Observing

  /// Registers `observer`: it first receives a `.reset` of the current array, then every later
  /// event; `registered` right after the `.reset`; `finished` when the array is deallocated.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Event>) -> any DisposableType {
    register(observer)
  }
}

// The mutable state is reached only through its lock, except `delivered`, which only the hand-off
// thread touches (handed over under the lock); the delivery producer and the gate are
// thread-safe. Elements cross threads, hence the condition.
extension ObservableArray: @unchecked Sendable where Element: Sendable {}
