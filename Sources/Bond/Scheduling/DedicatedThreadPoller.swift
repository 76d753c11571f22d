import Synchronization

/// What one poll of a ``DedicatedThreadPoller`` did.
@usableFromInline
enum PollOutcome {
  /// Nothing was ready.
  case idle
  /// It delivered something.
  case worked
  /// It is over (disposed, or its end delivered): the thread forgets it.
  case finished
}

/// A stage that a ``DedicatedThreadScheduler``'s thread polls, as the LMAX Disruptor's consumers
/// poll their ring: the non-generic half of ``PolledDelivery``, its ring and its ownership token.
///
/// **The ring.** Unbounded, one producer at a time (the upstream calls its observer one event at a
/// time, each call after the previous one's end: guarantee 1), one consumer (the scheduler's
/// thread). It is a chain of segments of `segmentSlots` slots. A slot holds the item and, in the
/// same cache line, its sequence number (its index in the stream, plus one), stored `.releasing`
/// after the item is written. The thread learns of an item and reads it in one cache-line transfer:
/// it loads (acquiring) the sequence of the slot it expects next. Nothing else is shared per item:
/// no lock, no flag, no queue of jobs. A producer that fills a segment links the next one (the
/// recycled spare, or a new allocation: one per `segmentSlots` items at most, none in a steady
/// stream), and the thread hands the segment it leaves back as the spare.
///
/// **The token.** `token` says who may touch the consumer's side (`head`, the items, the
/// observer): the thread while it polls (`pollingBit`, taken with a compare-exchange from 0), or
/// whoever sets `stopBit` (a `dispose()`, or the thread delivering the end) when the thread is
/// not polling. Setting `stopBit` is one wait-free `bitwiseOr`: a disposer that finds the thread
/// polling leaves the release to it, and the thread, which checks `stopBit` after each delivery,
/// releases everything when it leaves. So `dispose()` never waits for the thread, releases at
/// once when the stage is idle, and otherwise when the delivery running now returns (guarantee 3).
///
/// The producer's fields, the consumer's fields and the read-only ones sit on separate cache lines
/// (the padding), so that neither side's writes move the other side's lines.
/// - Note: thread-safe as described; `@unchecked` because the token and the serialized upstream
///   order the plain fields.
@usableFromInline
class DedicatedThreadPoller: @unchecked Sendable {
  /// The thread holds the consumer's side.
  @usableFromInline static var pollingBit: Int { 1 }
  /// The stage is over: disposed, or its end delivered.
  @usableFromInline static var stopBit: Int { 2 }
  /// Items one poll delivers at most, so that the thread's other stages and actions get a turn.
  @usableFromInline static var pollShare: Int { 1024 }
  /// Slots per segment.
  @usableFromInline static var segmentSlots: Int { 256 }
  /// The segment's header: the link to the next segment, on a line of its own.
  @usableFromInline static var headerSize: Int { 64 }

  // Read-only after init.
  /// Bytes from one slot to the next.
  @usableFromInline let slotStride: Int
  /// Where a slot's item starts (its sequence number is at 0).
  @usableFromInline let payloadOffset: Int
  /// Alignment of a segment's allocation.
  @usableFromInline let segmentAlignment: Int
  /// The thread that polls this stage.
  let core: DedicatedThreadLoop
  /// Whether the thread may park (`.spinThenPark`): each item then checks whether to wake it.
  @usableFromInline let wakesParkedThread: Bool
  /// One poll, made where the event type is concrete (so the thread runs specialized code).
  @usableFromInline let pollFunction: (DedicatedThreadPoller) -> PollOutcome
  @usableFromInline var readOnlyPadding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

  // The producer's: touched only by the upstream's serialized calls (and by deinit).
  /// The segment the next item goes into.
  @usableFromInline var tailSegment: UnsafeMutableRawPointer
  /// The index of the next item.
  @usableFromInline var tailIndex = 0
  @usableFromInline var producerPadding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

  // The consumer's: touched only by the token's holder.
  /// The segment of the next item to take.
  @usableFromInline var headSegment: UnsafeMutableRawPointer
  /// The index of the next item to take.
  @usableFromInline var headIndex = 0
  /// Its slot in `headSegment` (`segmentSlots` once the segment is all taken, until the link to the
  /// next one is followed).
  @usableFromInline var headOffset = 0
  /// `pollingBit` and `stopBit` (see the type's documentation).
  @usableFromInline let token = Atomic<Int>(0)
  /// A segment the thread left, for the producer's next one.
  @usableFromInline let spare = Atomic<UnsafeMutableRawPointer?>(nil)

  @usableFromInline
  init(
    scheduler: DedicatedThreadScheduler,
    slotStride: Int,
    payloadOffset: Int,
    alignment: Int,
    pollFunction: @escaping (DedicatedThreadPoller) -> PollOutcome
  ) {
    let core = scheduler.core
    self.core = core
    self.slotStride = slotStride
    self.payloadOffset = payloadOffset
    self.segmentAlignment = max(alignment, Self.headerSize)
    self.wakesParkedThread = core.mayPark
    self.pollFunction = pollFunction
    let first = Self.allocateSegment(stride: slotStride, alignment: max(alignment, Self.headerSize))
    tailSegment = first
    headSegment = first
  }

  /// A segment with a `nil` link and every sequence number 0.
  @usableFromInline
  static func allocateSegment(stride: Int, alignment: Int) -> UnsafeMutableRawPointer {
    let segment = UnsafeMutableRawPointer.allocate(byteCount: headerSize + segmentSlots * stride, alignment: alignment)
    segment.bindMemory(to: Atomic<UnsafeMutableRawPointer?>.self, capacity: 1).initialize(to: Atomic(nil))
    for slot in 0..<segmentSlots {
      (segment + headerSize + slot * stride).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
    }
    return segment
  }

  /// The link from `segment` to the next one.
  @inlinable
  static func link(_ segment: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>> {
    segment.assumingMemoryBound(to: Atomic<UnsafeMutableRawPointer?>.self)
  }

  /// The sequence number of the slot at `slot`.
  @inlinable
  static func sequence(_ slot: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Atomic<Int>> {
    slot.assumingMemoryBound(to: Atomic<Int>.self)
  }

  /// The producer's slot for the item at `tailIndex`, moving to a new segment at a segment's end.
  @inlinable
  func tailSlot() -> UnsafeMutableRawPointer {
    let offset = tailIndex & (Self.segmentSlots - 1)
    if offset == 0, tailIndex != 0 { advanceTail() }
    return tailSegment + Self.headerSize + offset * slotStride
  }

  /// Publishes the item written into `slot` (the one `tailSlot()` returned), and wakes the thread if
  /// it may be parked.
  @inlinable
  func publish(_ slot: UnsafeMutableRawPointer) {
    tailIndex &+= 1
    // releasing: the thread that loads this number (acquiring) sees the item written before it.
    Self.sequence(slot).pointee.store(tailIndex, ordering: .releasing)
    if wakesParkedThread { wakeThreadIfParked() }
  }

  /// `.spinThenPark`: wakes the thread if it parked (or is about to) before it saw the item.
  @usableFromInline
  @inline(never)
  func wakeThreadIfParked() {
    core.wakeIfParked()
  }

  /// Hands this stage to the thread, which polls it from its next look at its queue on.
  @usableFromInline
  func register() {
    core.submit(.poll(self))
  }

  /// The producer filled its segment: links the spare (or a new one) after it.
  @usableFromInline
  @inline(never)
  func advanceTail() {
    // acquiring: pairs with the thread's releasing hand-back, after it took the segment's items.
    let next =
      spare.exchange(nil, ordering: .acquiring)
      ?? Self.allocateSegment(stride: slotStride, alignment: segmentAlignment)
    // A recycled segment keeps its old sequence numbers: each is smaller than any index the
    // segment's slots take now, so none reads as ready. Its link is cleared before it is published.
    Self.link(next).pointee.store(nil, ordering: .relaxed)
    // releasing: the thread that follows the link sees the cleared link.
    Self.link(tailSegment).pointee.store(next, ordering: .releasing)
    tailSegment = next
  }

  /// The token holder's next item's slot, if it is published; moves to the next segment (handing
  /// the one it leaves back as the spare) at a segment's end.
  @inlinable
  func readySlot() -> UnsafeMutableRawPointer? {
    if headOffset == Self.segmentSlots {
      guard advanceHead() else { return nil }
    }
    let slot = headSegment + Self.headerSize + headOffset * slotStride
    // acquiring: pairs with `publish`'s releasing store; the item is then visible.
    guard Self.sequence(slot).pointee.load(ordering: .acquiring) == headIndex &+ 1 else { return nil }
    return slot
  }

  /// The token holder took the item of the slot `readySlot()` returned.
  @inlinable
  func taken() {
    headIndex &+= 1
    headOffset &+= 1
  }

  /// The token holder took every item of its segment: follows the link if the producer made it.
  @usableFromInline
  @inline(never)
  func advanceHead() -> Bool {
    // acquiring: pairs with `advanceTail`'s releasing store of the link.
    guard let next = Self.link(headSegment).pointee.load(ordering: .acquiring) else { return false }
    let left = headSegment
    headSegment = next
    headOffset = 0
    // releasing: the producer that takes the spare (acquiring) finds its items taken.
    if !spare.compareExchange(expected: nil, desired: left, ordering: .releasing).exchanged {
      left.deallocate()
    }
    return true
  }

  /// The thread's turn: takes the token, or reports the stage over.
  @inlinable
  func beginPoll() -> Bool {
    // acquiring: the consumer's side as the last holder (a disposer, or the thread) left it.
    token.compareExchange(expected: 0, desired: Self.pollingBit, ordering: .acquiring).exchanged
  }

  /// The thread's turn ends: gives the token back, or, when a `dispose()` came meanwhile, returns
  /// `false` (the thread then releases the consumer's side itself).
  @inlinable
  func endPoll() -> Bool {
    // releasing: the next holder sees the consumer's side as this poll left it.
    token.bitwiseAnd(~Self.pollingBit, ordering: .acquiringAndReleasing).oldValue & Self.stopBit == 0
  }

  /// Whether a `dispose()` (or the end) stopped the stage.
  @inlinable
  var isStopped: Bool { token.load(ordering: .acquiring) & Self.stopBit != 0 }

  /// Sets `stopBit` (wait-free). Returns whether the caller now holds the consumer's side and must
  /// release it: `true` when the stage was neither stopped nor being polled.
  @usableFromInline
  func stop() -> Bool {
    // acquiringAndReleasing: one winner; a winner that finds the thread idle sees the consumer's
    // side as the thread's last poll left it.
    token.bitwiseOr(Self.stopBit, ordering: .acquiringAndReleasing).oldValue == 0
  }

  deinit {
    var segment: UnsafeMutableRawPointer? = headSegment
    while let current = segment {
      segment = Self.link(current).pointee.load(ordering: .acquiring)
      current.deallocate()
    }
    spare.load(ordering: .acquiring)?.deallocate()
  }
}
