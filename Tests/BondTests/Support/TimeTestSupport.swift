import BondTesting
import Testing

/// Sends `inputs` (time, value) into a producer at those virtual times, through `operate`, and
/// returns what was delivered as "value@time", after running the clock until `end` (then disposes).
func timeline<P: EventProducerType>(
  _ inputs: [(Double, Int)],
  until end: Double,
  _ operate: (EventProducer<Int>, TestScheduler) -> P
) -> [String] where P.Event == Int {
  let clock = TestScheduler()
  let source = EventProducer<Int>()
  let delivered = Recorder<String>()
  let observation = operate(source, clock).observe { delivered.add("\($0)@\(clock.now)") }
  for (time, value) in inputs {
    clock.advance(to: time)
    source.next(value)
  }
  clock.advance(to: end)
  observation.dispose()
  // Leak check: the upstream observation ended and no timer is left behind.
  #expect(source.observerCount == 0 && clock.pendingActionCount == 0)
  return delivered.items
}

/// What an exit test's process wrote to standard error (where a precondition prints its message).
func exitTestStandardError(_ result: ExitTest.Result?) -> String {
  String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}
