import Synchronization

/// The plumbing that every operator combining several upstreams (`merge`, `switchToLatest`,
/// `flatMap`, `combineLatest`) shares: a private inbox (an ``EventProducer`` used as a serializer,
/// lossless and reentrancy-safe) into which the upstreams send from any thread, whose single
/// observer is the operator's sink, and the observation's composite disposable, the inbox first.
///
/// Disposing the composite disposes the inbox's observation first: no new delivery to the sink
/// starts (one in flight on another thread runs to its end, never waited for), and the sink (the
/// observer, the state) is released once no delivery runs; then the upstreams are let go.
@usableFromInline
struct Inbox<Input> {
  /// Unowned: the upstreams' observers hold the inbox (it lives while one can send), and the sink,
  /// which the inbox holds, must not.
  @usableFromInline unowned let serializer: EventProducer<Input>
  /// The observation's disposables: the inbox's first, then the upstreams' as they are observed.
  @usableFromInline let disposables: CompositeDisposable
  /// The pressure of the stage downstream (flow control), passed on to every upstream observed.
  @usableFromInline let pressure: FlowGate?
  /// The debug check of the sink's serialized state (empty in release builds), entered around every
  /// call of the sink: through the inbox's observer and on the direct path
  /// (``EventProducer/deliverToSoleObserverIfIdle(_:_:)``, which an upstream's event closure takes
  /// when the inbox is idle, calling the sink itself).
  @usableFromInline let serialAccess: SerialAccessCheck

  @inlinable
  init(_ serializer: EventProducer<Input>, pressure: FlowGate?) {
    self.serializer = serializer
    self.pressure = pressure
    disposables = CompositeDisposable()
    serialAccess = SerialAccessCheck()
  }

  /// Starts an observation: makes an inbox and keeps it alive while `body` makes the sink, opens the
  /// inbox to it (``open(_:)``) and observes the upstreams, whose observers then hold the inbox.
  /// - Returns: the observation's disposable.
  @inlinable
  static func observation(pressure: FlowGate?, _ body: (Inbox) -> Void) -> any DisposableType {
    let serializer = EventProducer<Input>()
    let inbox = Inbox(serializer, pressure: pressure)
    withExtendedLifetime(serializer) { body(inbox) }
    return inbox.disposables
  }

  /// Registers `receive` (the sink's) as the inbox's single observer, first of the disposables.
  ///
  /// Debug builds wrap it in the inbox's ``SerialAccessCheck``: the sink's `@exclusivity(unchecked)`
  /// state relies on `receive` (and the direct path's calls) never running on two threads at once,
  /// nor reentering; a delivery that breaks that rule stops with a message. Release builds register
  /// `receive` itself.
  @inlinable
  func open(_ receive: @escaping (Input) -> Void) {
    #if DEBUG
    let serialAccess = self.serialAccess
    disposables.add(
      serializer.observe { input in
        serialAccess.enter()
        defer { serialAccess.leave() }
        receive(input)
      }
    )
    #else
    disposables.add(serializer.observe(receive))
    #endif
  }

  /// A closure that sends `input` into the inbox (holding it), or `nil` when `input` is `nil`: what
  /// an upstream's `registered` or `finished` becomes, so that "nobody asked" stays `nil`. (An
  /// upstream's event closure is written by each operator, holding the ``serializer``, so that the
  /// per-event path is one closure, specialized where the types are concrete.)
  @inlinable
  func sender(_ input: Input?) -> (() -> Void)? {
    guard let input else { return nil }
    let serializer = self.serializer
    return { serializer.next(input) }
  }

  /// Observes the outer producer of `merge`, `switchToLatest` or `flatMap`: each event is
  /// `transform`ed into an input; `ended` is sent once, when the outer ends or releases its observer
  /// (it was deallocated, or the observation disposed), whichever comes first. Then the observation
  /// stops keeping the inners alive: it lives on while an inner can still send, and no reference
  /// cycle outlives the outer. The end of the outer's registration sends `registered`.
  @inlinable
  func observeOuter<Outer: EventProducerType>(
    _ outer: Outer,
    _ transform: @escaping (Outer.Event) -> Input,
    ended: Input,
    registered: Input?
  ) {
    let link = OuterReleaseNotifier(serializer: serializer, ended: ended)
    let observer = EventObserver<Outer.Event>(
      { link.serializer.next(transform($0)) },
      finished: { link.outerEnded() },
      registered: sender(registered),
      pressure: pressure
    )
    disposables.add(outer.observe(with: observer))
  }

  /// Delivers the end (called by the sink, in the inbox's delivery order): disposes the observation
  /// first, so that it reports `isDisposed`, nothing reaches the sink after this delivery and the
  /// upstreams are let go; then calls `registered` if it is still due (the registration ended with
  /// the stream) and `finished`. The sink and the observer's closures are released once this
  /// delivery returns.
  ///
  /// When the observation is already disposed, the user disposed it (perhaps from inside the
  /// delivery that ends the stream, such as `zip`'s last tuple): a disposed observation receives no
  /// end and no `registered` (finite streams rule 4, guarantee 3), so nothing is called.
  @inlinable
  func end(registered: (() -> Void)?, finished: (() -> Void)?) {
    // Only the user's dispose() and this end dispose `disposables`, and the sink's machine ends once:
    // a disposed composite here means the user's. Its lock is taken on the end path only.
    if disposables.isDisposed { return }
    disposables.dispose()
    registered?()
    finished?()
  }
}

/// What an upstream's event closure captures to reach the observation's inbox: the inbox, held (it
/// lives while an upstream can send), and the sink, for the direct path
/// (``EventProducer/deliverToSoleObserverIfIdle(_:_:)``). Both are called through unretained
/// references on the per-event path, so an event retains nothing (an inbox, weakly referenced by
/// its observation, has a side table: retaining it costs atomic operations on that table).
/// The sink is reached only on the direct path, while the inbox's observer, which holds it, is
/// registered and not disposed.
@usableFromInline
struct InboxLink<Input, Sink: AnyObject> {
  /// Held, not used on the per-event path.
  @usableFromInline let serializer: EventProducer<Input>
  @usableFromInline let unretainedSerializer: Unmanaged<EventProducer<Input>>
  @usableFromInline let sink: Unmanaged<Sink>
  @usableFromInline let serialAccess: SerialAccessCheck

  @inlinable
  init(_ inbox: Inbox<Input>, sink: Sink) {
    serializer = inbox.serializer
    unretainedSerializer = Unmanaged.passUnretained(inbox.serializer)
    self.sink = Unmanaged.passUnretained(sink)
    serialAccess = inbox.serialAccess
  }

  /// The direct path: with the inbox idle, calls `direct` with the sink (in place of a delivery)
  /// and returns `true`; else returns `false`, doing nothing: then send the input with ``next(_:)``.
  @inlinable @inline(__always)
  func deliverIfIdle(_ direct: (Sink) -> Void) -> Bool {
    unretainedSerializer._withUnsafeGuaranteedRef { serializer in
      serializer.deliverToSoleObserverIfIdle(serialAccess) { sink._withUnsafeGuaranteedRef(direct) }
    }
  }

  /// Sends `input` into the inbox after ``deliverIfIdle(_:)`` found it busy: queued behind the
  /// delivery in progress, or performed by this thread if the holder has left meanwhile (the
  /// contended path of ``EventProducer/next(_:)``, without a second try of the fast path: the
  /// caller's per-event code then keeps no register for it).
  @inlinable @inline(__always)
  func next(_ input: Input) {
    unretainedSerializer._withUnsafeGuaranteedRef { $0.submitContended(.event(input)) }
  }
}

/// What the outer producer's observer of a `merge`, `switchToLatest` or `flatMap` observation
/// captures: the observation's inbox. It sends `ended` once: at the outer's end, or from `deinit`
/// when the outer releases its observer without ending (the observation was disposed, or the outer
/// does not end its observers when it goes), since nothing can come from the outer any more.
@usableFromInline
final class OuterReleaseNotifier<Input> {
  @usableFromInline let serializer: EventProducer<Input>
  @usableFromInline let ended: Input
  /// Set by the first of `outerEnded()` and `deinit` (which cannot overlap: `deinit` runs after the
  /// last call has returned; atomic so that the two threads' accesses are ordered for every checker).
  @usableFromInline let hasSent = Atomic<Bool>(false)

  @inlinable
  init(serializer: EventProducer<Input>, ended: Input) {
    self.serializer = serializer
    self.ended = ended
  }

  @inlinable
  func outerEnded() {
    // acquiringAndReleasing: one winner sends.
    guard !hasSent.exchange(true, ordering: .acquiringAndReleasing) else { return }
    serializer.next(ended)
  }

  deinit {
    // Queued behind whatever the serializer is delivering (never recursing into it); ignored when
    // the observation was disposed or has ended first.
    if !hasSent.exchange(true, ordering: .acquiringAndReleasing) { serializer.next(ended) }
  }
}

/// What the sink of every multi-source operator (`combineLatest`, `zip`, `merge`,
/// `switchToLatest`) keeps of its observation and never changes: the observer's event and end
/// closures and the inbox. A `let` of the sink, read on the per-event path without copying.
@usableFromInline
struct InboxSinkOutput<Event, Input> {
  @usableFromInline let observer: (Event) -> Void
  @usableFromInline let finished: (() -> Void)?
  @usableFromInline let inbox: Inbox<Input>

  @inlinable
  init(inbox: Inbox<Input>, observer: EventObserver<Event>) {
    self.inbox = inbox
    self.observer = observer.event
    self.finished = observer.finished
  }
}

/// The sink of a multi-source operator: the single observer of its observation's inbox, which
/// never calls it concurrently (no lock). It keeps the observer's `registered` until it is due.
@usableFromInline
protocol InboxSink<Event, Input>: AnyObject {
  associatedtype Event
  associatedtype Input
  var output: InboxSinkOutput<Event, Input> { get }
  /// The observer's `registered`, set to `nil` once called.
  var registered: (() -> Void)? { get set }
}

extension InboxSink {
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
