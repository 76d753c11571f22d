import Synchronization

/// A value you can watch: a producer with a replay of 1 that always has a current value.
///
/// ```swift
/// let name = Observable("Jim")
/// name.observe { print("Hi \($0)") }   // prints "Hi Jim"
/// name.value = "Spock"                 // prints "Hi Spock"
/// ```
///
/// `value` is the latest value sent, in delivery order: when several threads set it at once,
/// the value that stays is the one observers receive last.
/// - Note: thread-safe, with the delivery guarantees of ``EventProducer``.
public final class Observable<Value>: EventProducerType, BindableType {
  @usableFromInline let producer: EventProducer<Value>

  /// Creates an observable holding `value`.
  public init(_ value: Value) {
    producer = EventProducer(replayLength: 1)
    producer.nextKeepingLatest(value)
  }

  /// Always 1: a new observer first receives the current value.
  public var replayLength: Int { 1 }

  /// The current value. Setting it is ``next(_:)``.
  public var value: Value {
    get { producer.latest }
    set { producer.nextKeepingLatest(newValue) }
  }

  /// Sets the value and sends it to every observer.
  @inlinable
  public func next(_ value: Value) {
    producer.nextKeepingLatest(value)
  }

  /// Registers `observer`: it receives the current value, then every later one; `registered`
  /// right after the current value; `finished` when the observable is deallocated.
  @inlinable
  @discardableResult
  public func observe(with observer: EventObserver<Value>) -> any DisposableType {
    producer.observe(with: observer)
  }

  /// The number of observations that are registered and not disposed.
  public var observerCount: Int { producer.observerCount }

  /// Returns a function that sets this observable's value. It holds the observable weakly; the
  /// observable disposes `disconnectDisposable` when it is deallocated, which ends a binding into it.
  public func sink(_ disconnectDisposable: (any DisposableType)?) -> (Value) -> Void {
    if let disconnectDisposable { producer.disposeOnDeinit(disconnectDisposable) }
    return { [weak producer] value in producer?.nextKeepingLatest(value) }
  }
}

extension Observable: @unchecked Sendable where Value: Sendable {}

/// What a locked submission leaves its caller to do after unlocking.
@usableFromInline
enum SubmitRole {
  /// It took the delivery rights: deliver the event at once.
  case deliverNow
  /// It queued the event and took the rights (the holder had just left): drain the queue.
  case drain(missed: Int)
  /// It queued the event behind the current holder, which will deliver it.
  case queued
}

extension EventProducer {
  /// The latest value sent through ``nextKeepingLatest(_:)``.
  @usableFromInline
  var latest: Event {
    withPending { $0.latest! }
  }

  /// `next`, recording the event as the latest value in the same critical section that orders it,
  /// so that `latest` is always the last event in delivery order.
  ///
  /// The queued path counts its work (`rights.counted`) inside the same critical section as the
  /// push: were it counted after unlocking (as plain `next` does), the drainer could leave in between and
  /// another thread's locked fast path could deliver its value while this one still waits in the
  /// queue, so delivery order would differ from the order `latest` was written.
  @inlinable
  func nextKeepingLatest(_ event: Event) {
    let sender = currentThreadID()
    let role = withPending { state -> SubmitRole in
      state.latest = event
      if rights.takeIfIdle() { return .deliverNow }
      state.queue.push(SentWork(.event(event), sender: sender))
      return rights.counted(1).map { .drain(missed: $0) } ?? .queued
    }
    switch role {
    case .deliverNow:
      perform(.event(event))
      finishDraining(accounted: 1)
    case .drain(let missed):
      drainQueued(missed: missed, budget: drainHandOffLimit)
    case .queued:
      break
    }
  }

  /// Disposes `disposable` when this producer is deallocated (how a binding into it ends).
  @usableFromInline
  func disposeOnDeinit(_ disposable: any DisposableType) {
    withLifecycle { state in
      state.disconnectDisposables.removeAll { $0.isDisposed }
      state.disconnectDisposables.append(disposable)
    }
  }
}
