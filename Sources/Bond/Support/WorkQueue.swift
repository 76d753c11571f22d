/// A growable FIFO ring of pending work. Its storage is reused: once it has grown to the
/// largest backlog seen, pushing and popping allocate nothing. Not thread-safe: the producer
/// keeps one behind its lock and swaps it with an empty one to drain outside the lock.
@usableFromInline
struct WorkQueue<Element> {
  @usableFromInline var storage: ContiguousArray<Element?> = []
  @usableFromInline var head = 0
  @usableFromInline var count = 0

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { count == 0 }

  @inlinable
  mutating func push(_ element: Element) {
    if count == storage.count { grow() }
    var tail = head + count
    if tail >= storage.count { tail -= storage.count }
    storage[tail] = element
    count += 1
  }

  /// The element `pop()` would return, left in place.
  @inlinable
  var first: Element? {
    count == 0 ? nil : storage[head]
  }

  /// The sender of the element `pop()` would return (a queue of ``SentWork``), without copying it.
  @inlinable
  func firstSender<Work>() -> UInt? where Element == SentWork<Work> {
    count == 0 ? nil : storage[head].unsafelyUnwrapped.sender
  }

  @inlinable
  mutating func pop() -> Element? {
    guard count > 0 else { return nil }
    let element = storage[head].take()
    head += 1
    if head == storage.count { head = 0 }
    count -= 1
    if count == 0 { head = 0 }
    return element
  }

  // Inlinable so it specializes for the element type (unspecialized, it costs ~200 ns per element);
  // never inlined, so it stays off the push path.
  @inlinable @inline(never)
  mutating func grow() {
    let newCapacity = Swift.max(16, storage.count * 2)
    var grown = ContiguousArray<Element?>()
    grown.reserveCapacity(newCapacity)
    for offset in 0..<count {
      var index = head + offset
      if index >= storage.count { index -= storage.count }
      grown.append(storage[index].take())
    }
    grown.append(contentsOf: repeatElement(nil, count: newCapacity - count))
    storage = grown
    head = 0
  }
}

/// A work item queued by a thread that found the delivery rights taken, with that thread: the
/// holder performs its own (reentrant) work without limit, and at most a budget of other threads'
/// work before it hands the rest to a worker (`EventProducer+Drain.swift`, "Bounded work for others").
@usableFromInline
struct SentWork<Work> {
  @usableFromInline let work: Work
  /// ``currentThreadID()`` of the thread that queued it.
  @usableFromInline let sender: UInt

  @inlinable
  init(_ work: Work, sender: UInt) {
    self.work = work
    self.sender = sender
  }
}
