// S7d deliver-on-dedicated: producer -> `deliverOn` on a `DedicatedThreadScheduler(.busySpin)` ->
// observer; 1M events, timed until the last one has arrived (end to end). Bond: the ring the
// scheduler's thread polls; closure: one `schedule` per event on the same scheduler (the unbatched
// hop through its queue of actions). The bodies are S7's (DeliverOn.swift), on this scheduler.

import Benchmark
import Bond

func registerDeliverOnDedicated() {
  register("S7d", .bond) { benchmark in
    measureDeliverOn(benchmark, on: DedicatedThreadScheduler(waitStrategy: .busySpin))
  }

  register("S7d", .closure) { benchmark in
    measureHopPerEvent(benchmark, on: DedicatedThreadScheduler(waitStrategy: .busySpin))
  }
}
