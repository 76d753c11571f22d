/// What an upstream of a tuple operator (`combineLatest`, `zip`) sends into the observation's inbox
/// instead of its position (0 or more): a negative marker for the end of its registration or for
/// its end.
@usableFromInline
enum TupleMarkers {
  /// The upstream has finished registering.
  @inlinable static var registered: Int { -1 }

  /// The upstream at `position` has ended.
  @inlinable
  static func ended(position: Int) -> Int { -2 - position }

  /// The position of the upstream whose end `marker` (below ``registered``) is.
  @inlinable
  static func position(ofEnded marker: Int) -> Int { -2 - marker }
}

/// One upstream of a tuple operator (`combineLatest`, `zip`), behind closures made where its type
/// is concrete (so they are specialized for it, unlike code in a loop over a parameter pack or in a
/// generic class's overridden methods).
@usableFromInline
struct TupleSource {
  /// Observes the upstream: each event is queued and the given position sent into the inbox; so are
  /// the end of its registration (as ``TupleMarkers/registered``, when `forwardsRegistered`) and its
  /// end (``TupleMarkers/ended(position:)``).
  ///
  /// With the inbox idle, an event takes the direct path (`EventProducer+Direct.swift`) to `sink`:
  /// stored into the tuple at once and the sink called (`combineLatest`, through
  /// ``CombineLatestSinkBase/eventClosure(_:_:_:_:)``; `zip`, whose sink `buffersEvents`, through
  /// `sink.receiveDirect(_:isItsFirst:)`, when the upstream has nothing unmatched, else queued
  /// behind its oldest); else the position goes into the inbox as before.
  @usableFromInline typealias Observe = (
    _ position: Int, _ inbox: Inbox<Int>, _ sink: TupleDirectSink, _ forwardsRegistered: Bool,
    _ pressure: FlowGate?
  ) -> any DisposableType

  /// The upstream's replay length.
  @usableFromInline let replayLength: () -> Int
  /// Places the upstream's element at the next offset of `layout`; makes its slot (which the
  /// observation keeps) and the function that observes the upstream into it (used once: it holds
  /// the upstream, which the observation must not keep alive).
  @usableFromInline let makeSlot: (inout TupleLayout) -> (slot: TupleSlot, observe: Observe)

  @inlinable
  init<Upstream: EventProducerType>(_ upstream: Upstream) {
    replayLength = { upstream.replayLength }
    makeSlot = { layout in
      let queue = TupleQueue<Upstream.Event>(offset: layout.append(Upstream.Event.self))
      let observe: Observe = { position, inbox, sink, forwardsRegistered, pressure in
        // The closures hold the inbox and the queue: they live while the upstream can send.
        let link = InboxLink(inbox, sink: sink)
        let registered = forwardsRegistered ? TupleMarkers.registered : nil
        let base = sink.base  // the tuple's address, for zip's closure (its own capture list)
        let event: (Upstream.Event) -> Void =
          sink.buffersEvents
          ? { event in
            // Idle inbox: the sink knows every event of this upstream; its oldest unmatched one, if
            // any, is in the tuple (`isSet`), the others queued behind it.
            let direct = link.deliverIfIdle { sink in
              guard !queue.isSet else {
                queue.push(event)
                return sink.receiveDirect(position, isItsFirst: false)
              }
              sink.receiveDirect(position, isItsFirst: queue.store(event, in: base))
            }
            if !direct {
              queue.push(event)
              link.next(position)
            }
          }
          : CombineLatestSinkBase.eventClosure(position, inbox, sink, queue)
        return upstream.observe(
          with: EventObserver(
            event,
            finished: inbox.sender(TupleMarkers.ended(position: position)),
            registered: inbox.sender(registered),
            pressure: pressure
          )
        )
      }
      return (TupleSlot(queue), observe)
    }
  }
}

/// One upstream's part of a tuple operator's observation (`combineLatest`, `zip`), type-erased: the
/// closures reach its ``TupleQueue`` with its concrete type.
@usableFromInline
struct TupleSlot {
  /// Moves the upstream's oldest queued event into the tuple at the given address.
  /// Returns true when it is the upstream's first event.
  @usableFromInline let storeNext: (UnsafeMutableRawPointer) -> Bool
  /// Deinitializes the upstream's element of the tuple at the given address, if set.
  @usableFromInline let clear: (UnsafeMutableRawPointer) -> Void
  /// Whether the upstream's element is set: it has sent (read by the serializer's observer).
  @usableFromInline let hasSent: () -> Bool
  /// The upstream's queue, for `zip`'s core, which moves each event out of it into the tuple
  /// (``TupleQueueBase/moveNext``: `zip` moves each tuple out whole; `combineLatest` keeps its
  /// tuple).
  @usableFromInline let queue: TupleQueueBase

  @inlinable
  init<Value>(_ queue: TupleQueue<Value>) {
    self.queue = queue
    storeNext = { base in queue.storeNext(in: base) }
    clear = { base in queue.clear(in: base) }
    hasSent = { queue.isSet }
  }
}
