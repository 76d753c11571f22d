import BondTesting
import Testing

/// Sends `inputs` (time, value) into a producer at those virtual times, through `operate`, and
/// returns what was delivered as "value@time", after running the clock until `end` (then disposes).
func timeline<P: EventProducerType>(
  _ inputs: [(Double, Int)],
  until end: Double,
  _ operate: (EventProducer<Int>, TestScheduler) -> P
) -> [String] where P.Event == Int {
  runTimeline(inputs, endAt: nil, until: end, operate)
}

/// Like ``timeline(_:until:_:)``, with the upstream finished at `endAt`: the end is recorded as
/// "end@time". Checks that the observation is over at `end` (`isDisposed`) and left nothing behind.
func finiteTimeline<P: EventProducerType>(
  _ inputs: [(Double, Int)],
  endAt: Double,
  until end: Double,
  _ operate: (EventProducer<Int>, TestScheduler) -> P
) -> [String] where P.Event == Int {
  runTimeline(inputs, endAt: endAt, until: end, operate)
}

private func runTimeline<P: EventProducerType>(
  _ inputs: [(Double, Int)],
  endAt: Double?,
  until end: Double,
  _ operate: (EventProducer<Int>, TestScheduler) -> P
) -> [String] where P.Event == Int {
  let clock = TestScheduler()
  let source = EventProducer<Int>()
  let delivered = Recorder<String>()
  let observation = operate(source, clock).observe {
    delivered.add("\($0)@\(clock.now)")
  } finished: {
    delivered.add("end@\(clock.now)")
  }
  for (time, value) in inputs {
    clock.advance(to: time)
    source.next(value)
  }
  if let endAt {
    clock.advance(to: endAt)
    source.finish()
    source.next(-1)  // after the end: reaches nobody
  }
  clock.advance(to: end)
  if endAt != nil { #expect(observation.isDisposed, "the observation is over at the end") }
  observation.dispose()
  // Leak check: the upstream observation ended and no timer is left behind.
  #expect(source.observerCount == 0 && clock.pendingActionCount == 0)
  return delivered.items
}

/// Observes `producer`, logging each event as "\(event)" and the end as "end".
func logEvents<P: EventProducerType>(of producer: P) -> (log: Recorder<String>, observation: any DisposableType) {
  let log = Recorder<String>()
  let observation = producer.observe {
    log.add("\($0)")
  } finished: {
    log.add("end")
  }
  return (log, observation)
}

/// What an exit test's process wrote to standard error (where a precondition prints its message).
func exitTestStandardError(_ result: ExitTest.Result?) -> String {
  String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}
