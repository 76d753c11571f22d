/// What an ``ObservableArray`` sends: the operation just applied and the array after it.
///
/// ```swift
/// names.observe { event in
///   print("Array is now: \(event.sequence)")
///   if case .insert(let elements, let fromIndex) = event.operation { print("Inserted \(elements) from \(fromIndex)") }
/// }
/// ```
///
/// ``sequence`` may be computed on first access: the events of
/// ``EventProducerType/mapElements(_:)`` derive it from the source event only when it is read, so
/// an observer that only looks at ``operation`` never pays for the whole array.
/// - Note: a value type; `Sendable` when `Element` is. Reading ``sequence`` from several threads
///   is safe; a deferred sequence is computed by the first reader (a reader racing it may compute
///   it too, with the same result).
public struct ObservableArrayEvent<Element> {
  /// The operation that was applied to the array.
  public let operation: ObservableArrayOperation<Element>
  @usableFromInline let storage: Storage

  @usableFromInline
  enum Storage {
    case array([Element])
    case deferred(LazyArray<Element>)
  }

  /// An event whose array after the operation is `sequence`.
  @inlinable
  public init(sequence: [Element], operation: ObservableArrayOperation<Element>) {
    self.operation = operation
    self.storage = .array(sequence)
  }

  /// An event whose array after the operation is computed by `sequence` on first access (at most
  /// once, except when two threads race on the first access).
  public init(operation: ObservableArrayOperation<Element>, deferredSequence sequence: @escaping () -> [Element]) {
    self.operation = operation
    self.storage = .deferred(LazyArray(sequence))
  }

  /// The array after the operation.
  @inlinable
  public var sequence: [Element] {
    switch storage {
    case .array(let array): return array
    case .deferred(let deferred): return deferred.value
    }
  }
}

extension ObservableArrayEvent: Sendable where Element: Sendable {}
extension ObservableArrayEvent.Storage: Sendable where Element: Sendable {}

extension ObservableArrayEvent: CustomStringConvertible {
  /// The operation and the resulting array, for logs.
  public var description: String {
    "ObservableArrayEvent(operation: \(operation), sequence: \(sequence))"
  }
}

extension ObservableArrayEvent {
  /// The same event with every element transformed: the operation's elements at once (as many as
  /// the operation carries), the ``sequence`` only when it is read (a `.reset` reuses its array).
  @inlinable
  public func mapElements<T>(_ transform: @escaping (Element) -> T) -> ObservableArrayEvent<T> {
    let operation = self.operation.mapElements(transform)
    if case .reset(let array) = operation {
      return ObservableArrayEvent<T>(sequence: array, operation: operation)
    }
    let source = self
    return ObservableArrayEvent<T>(operation: operation, deferredSequence: { source.sequence.map(transform) })
  }
}
