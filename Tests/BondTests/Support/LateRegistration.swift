@testable import Bond

/// A producer whose registration ends only when the test says so (like one that registers on a
/// scheduler): `finish()` calls the pending `registered` callbacks.
final class LateRegistration<Event>: EventProducerType {
  let producer = EventProducer<Event>(replayLength: 1)
  var pending: [() -> Void] = []
  var replayLength: Int { 1 }
  func observe(with observer: EventObserver<Event>) -> any DisposableType {
    if let registered = observer.registered { pending.append(registered) }
    return producer.observe(with: EventObserver(observer.event, finished: observer.finished))
  }
  func finish() {
    let calls = pending
    pending = []
    for call in calls { call() }
  }
}
