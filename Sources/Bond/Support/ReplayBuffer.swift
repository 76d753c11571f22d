/// A fixed-capacity ring of the last `capacity` events, oldest first.
///
/// Storage grows with the events sent, up to `capacity` slots (no eager allocation of
/// `replayLength` slots); once full, an append overwrites the oldest slot in O(1) (no
/// `removeFirst`). Not thread-safe: only the producer's current drainer touches it.
@usableFromInline
struct ReplayBuffer<Element> {
  @usableFromInline var storage: ContiguousArray<Element> = []
  /// Index of the oldest element once the storage is full; 0 before.
  @usableFromInline var head = 0
  @usableFromInline let capacity: Int

  @inlinable
  init(capacity: Int) {
    self.capacity = capacity
  }

  @inlinable
  var count: Int { storage.count }

  @inlinable
  mutating func append(_ element: Element) {
    if storage.count < capacity {
      storage.append(element)
    } else if capacity > 0 {
      storage[head] = element
      head += 1
      if head == capacity { head = 0 }
    }
  }

  /// The element at position `offset` counted from the oldest one.
  @inlinable
  subscript(offset: Int) -> Element {
    var index = head + offset
    if index >= storage.count { index -= storage.count }
    return storage[index]
  }
}
