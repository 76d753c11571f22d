/// What the sinks of the tuple operators (`combineLatest`, `zip`) share and never change: the
/// tuple's storage, the upstreams' slots in it, the observer's closures and the inbox. A `let` of
/// the sink (read on the per-event path without copying).
@usableFromInline
struct TupleSinkOutput<Event> {
  /// The tuple, initialized element by element through `slots`.
  @usableFromInline let tuple: UnsafeMutablePointer<Event>
  @usableFromInline let slots: [CombineLatestSlot]
  @usableFromInline let observer: (Event) -> Void
  @usableFromInline let finished: (() -> Void)?
  @usableFromInline let inbox: Inbox<Int>

  @inlinable
  init(slots: [CombineLatestSlot], inbox: Inbox<Int>, observer: EventObserver<Event>) {
    tuple = .allocate(capacity: 1)
    self.slots = slots
    self.inbox = inbox
    self.observer = observer.event
    self.finished = observer.finished
  }

  /// Deinitializes what is set in the tuple and frees it: the sink's `deinit`.
  @inlinable
  func release() {
    for slot in slots { slot.clear(UnsafeMutableRawPointer(tuple)) }
    tuple.deallocate()
  }
}

/// The sink of a tuple operator: the single observer of the observation's inbox, which receives an
/// upstream's position when it sent an event, or a marker (negative) for a registration's end or
/// an upstream's end.
@usableFromInline
protocol TupleSink<Event>: AnyObject {
  associatedtype Event
  init(slots: [CombineLatestSlot], inbox: Inbox<Int>, observer: EventObserver<Event>)
  var output: TupleSinkOutput<Event> { get }
  /// The observer's `registered`, set to `nil` once called.
  var registered: (() -> Void)? { get set }
  func receive(_ position: Int)
}

extension TupleSink {
  /// Calls `registered` the first time; later calls do nothing.
  @inlinable
  func callRegistered() {
    let registered = self.registered
    self.registered = nil
    registered?()
  }

  /// Delivers the end (see ``Inbox/end(registered:finished:)``).
  @inlinable
  func end() {
    output.inbox.end(registered: registered, finished: output.finished)
  }
}

extension Array where Element == CombineLatestSource {
  /// The observation of a tuple operator over these upstreams: lays the tuple out, checks the
  /// layout against the compiler's, makes the sink, opens the inbox to it and observes every
  /// upstream in order (stopping if the observation ended during a registration).
  @inlinable
  func observeTuples<Sink: TupleSink>(
    into sink: Sink.Type,
    observer: EventObserver<Sink.Event>,
    operator name: StaticString
  ) -> any DisposableType {
    var layout = TupleLayout()
    let parts = map { $0.makeSlot(&layout) }
    precondition(
      layout.size == MemoryLayout<Sink.Event>.size && layout.alignment == MemoryLayout<Sink.Event>.alignment,
      "\(name): the tuple layout differs from the compiler's"
    )
    return Inbox.observation { inbox in
      let sink = Sink(slots: parts.map(\.slot), inbox: inbox, observer: observer)
      inbox.open { sink.receive($0) }
      for (position, part) in parts.enumerated() {
        if inbox.disposables.isDisposed { break }  // ended at registration
        inbox.disposables.add(part.observe(position, inbox, observer.registered != nil))
      }
    }
  }

  /// The upstreams of a variadic tuple operator, each behind its own closures.
  /// - Precondition: at least two producers.
  @inlinable
  static func of<each P: EventProducerType>(_ producers: repeat each P, call: StaticString) -> [CombineLatestSource] {
    var sources: [CombineLatestSource] = []
    for producer in repeat each producers { sources.append(CombineLatestSource(producer)) }
    precondition(sources.count >= 2, "\(call): needs at least two producers, got \(sources.count)")
    return sources
  }
}
