/*
 * Pressure.pml: a Promela model of Bond's flow control (issue 18): a `.backpressure` stage's gate,
 * the producer's gate it puts under pressure, async senders waiting for the release, sync senders,
 * the stage's drain, and dispose / the upstream's end releasing the pressure. Checked with spin by
 * Verification/check-model (see Verification/README.md, "Pressure.pml").
 *
 * SOURCE MAP (Sources/Bond/)
 *   model step                         Swift (file:function)
 *   gateRaise(g) / gateRelease(g)      Core/FlowGate.swift:raise / release
 *     d_step { cnt +-= 1; decide }       state.withLock { count += 1 / -= 1; guard == 1 / == 0; take
 *                                        dependents (and, on release, waiters and wakers); publish }
 *     carry out, after the d_step        carryOut: dependents raised / released one by one, then
 *                                        waiters resumed (waiter.delivered()), then wakers called
 *   prs[g]                             FlowGate.pressured (count > 0 && !isFinished), read lock-free
 *   link[g] (dependents -> PG)         FlowGate.State.dependents (the producer's gate once per link)
 *   addLink(g) / unlink(g)             FlowGate.swift:addDependent / removeDependent (decided under
 *                                        the lock: append + `count > 0`, remove + `count > 0`; the
 *                                        dependent raised / released after it);
 *                                      Core/Observation.swift:ObserverBox.init / deinit (the box of
 *                                        the stage's observation of P: added at registration, removed
 *                                        when the box goes: purged after dispose, or ended)
 *   waitm (bitmask of senders)         FlowGate.State.waiters
 *   waitForRelease                     FlowGate.swift:waitForRelease (count > 0 && !isFinished re-checked
 *                                        under the lock, else false); LOST_WAKEUP: no re-check
 *   forget                             FlowGate.swift:forget
 *   wakem[g] (bitmask of stages)       FlowGate.State.wakers; wakeOnRelease (the same re-check);
 *                                        NO_WAKE_RECHECK: no re-check
 *   gateFinish (PG)                    FlowGate.swift:finish (isFinished; waiters and wakers taken out)
 *   Async(id): waitUntilWritable loop  FlowControl/EventProducer+FlowControl.swift:waitUntilWritable:
 *                                        checkCancellation; isFinished; flowGate.load()?.isPressured;
 *                                        DeliveryWaiter; withTaskCancellationHandler; suspend;
 *                                        `if !gate.waitForRelease(waiter) { waiter.delivered() }`;
 *                                        onCancel: waiter.cancel(); gate.forget(waiter)
 *     wst[id]                            Support/DeliveryWaiter.swift: State (initial, suspended,
 *                                        cancelled, resumed); suspend / delivered / cancel: one d_step each
 *   Async(id): pSend                   FlowControl/SendContentsOf.swift:sendAwaitingDelivery (CAS the rights:
 *                                        deliver, finishDraining; else queue and suspend until delivered)
 *   Sync: pSend                        Core/EventProducer.swift:next (CAS the rights, or queue and return)
 *   prights, pqa, pqs, pqend           P's delivery rights (`wip`) and pending queue (Drain.pml models
 *                                        them in full; here: a holder delivers its item, then every
 *                                        queued item, in any order, then gives the rights back)
 *   stageSend(s)                       Scheduling/ScheduledDelivery.swift:send -> DeliverOnStateMachine
 *                                        .eventReceived (d_step: push, isDraining, underPressure at
 *                                        bufferLimit), then perform(.pressure): upstreamGate.raise()
 *                                        after the stage lock, then scheduleDrain
 *   Drain(s)                           ScheduledDelivery+Drain.swift:drainOneByOne:
 *     pausesForDownstream                  downstreamGate.isPressured, then wakeOnRelease { scheduleDrain }
 *     d_step nextEvent                     DeliverOnStateMachine.nextEvent + releasesPressure (buffer
 *                                          down to bufferLimit / 2 while under pressure)
 *     release before delivering            `if releases { upstreamGate?.release() }`, then isStopped
 *     .finish -> deliverEnd                deliverEnd: disposedFlag.exchange, settle (release if
 *                                          underPressure), finished (the next stage's finish())
 *   stageFinish(s)                     ScheduledDelivery.swift:finish (endReceived + releasesPressureAtEnd
 *                                        under the lock, release after it); NO_RELEASE_AT_END: none
 *   stageDispose(s)                    ScheduledDelivery.swift:dispose: disposedFlag.exchange;
 *                                        disposed() under the lock; upstream.dispose() (the purge:
 *                                        unlink); settle: release if it was under pressure;
 *                                        NO_RELEASE_ON_DISPOSE: settle releases nothing
 *   pFinish                            Core/EventProducer.swift:finish: finishRequested; gate.finish();
 *                                        the end as a work item (the box ends: the stage's finish())
 *   partition (SCENARIO 6)             Stages/Partition.swift: one upstreamGate for both lanes'
 *                                        ScheduledDelivery; the router (P's observer) picks the lane
 *
 * Atomicity: each d_step is one critical section of the Swift code (a gate's lock, the stage's
 * lock, a DeliveryWaiter's lock) or one atomic (a flag's exchange, `pressured`'s load). A gate's
 * transition is decided in its d_step and carried out after it, one step per dependent / waiter /
 * waker, so two transitions of a gate can be carried out in another order than decided (a release
 * overtaking its raise: a dependent's count goes below 0 for a moment).
 *
 * Not modelled: writability (the `changes` producer: a token after each transition, not a part of
 * the protocol), statistics, the drain's share (reschedule after 1,024 events: a new drain
 * scheduled, like a wake-up), the registered callback, replay, array mode (batches), `share`
 * (a producer gate with dependents of its own: one more level of the same carry-out), deinit of a
 * stage (releasesPressureAtEnd, the same call as at the end, when nothing refers to the stage),
 * a partition lane's pause on its lane producer's gate (the same pausesForDownstream as SCENARIO 5).
 *
 * Build switches:
 *   -DSCENARIO=n             which senders, stages and events (see below)
 *   -DLIM=n                  bufferLimit (2; the low watermark is LIM / 2)
 *   -DLOST_WAKEUP            waitForRelease keeps the waiter without re-checking the count (must fail)
 *   -DNO_RELEASE_ON_DISPOSE  dispose() does not release its gate (must fail)
 *   -DNO_RELEASE_AT_END      finish() (the upstream's end) does not release at once (must fail)
 *   -DNO_WAKE_RECHECK        wakeOnRelease keeps the waker without re-checking (must fail, SCENARIO 5)
 *   -DNOFINAL                no quiescence assertions (the LTL runs: the claim alone decides)
 *   -DALWAYS_PURGE           the purge (unlink) always happens at dispose / the end (else it may
 *                            come late or never: the stage's own release must be enough)
 */

#ifndef SCENARIO
#define SCENARIO 1
#endif
#ifndef LIM
#define LIM 2
#endif

/* ---------------------------------------------------------------------------------------------
 * Scenarios:
 *   NA            async senders (ids 0..NA-1), each sending K(id) events (then returning)
 *   NSYNC         events sent by the sync sender (`next`), 0: none
 *   NS            stages (0..NS-1); UG(s): stage s's upstream gate; DG(s): its downstream gate (0: none)
 *   ROUTE(id)     the stage P's events go to (the partition's router: by sender)
 *   CHAIN         stage 0 delivers into stage 1 (two stages in a row)
 *   MAYSTOP       the last stage's consumer may stop for good (block inside the observer)
 *   DISPOSER      a process disposes the (outermost) stage at any time
 *   ENDER         1: the stage's upstream ends (stage.finish(), P not finished); 2: P finishes
 *   CANCEL        sender 1 may be cancelled at any time
 * ------------------------------------------------------------------------------------------- */
#if SCENARIO == 1
/* One stage, a consumer that keeps draining, two async senders (3 events each). */
#define NA 2
#define K(id) 3
#define NS 1
#elif SCENARIO == 2
/* One stage whose consumer may stop for good; a dispose follows (at any time). */
#define NA 2
#define K(id) 2
#define NS 1
#define MAYSTOP
#define DISPOSER
#elif SCENARIO == 3
/* One stage whose consumer may stop for good; its upstream ends (stage.finish(), P not finished). */
#define NA 2
#define K(id) 2
#define NS 1
#define MAYSTOP
#define ENDER 1
#elif SCENARIO == 4
/* One stage whose consumer may stop for good; P finishes (its gate finishes, the end follows). */
#define NA 2
#define K(id) 2
#define NS 1
#define MAYSTOP
#define ENDER 2
#elif SCENARIO == 5
/* Two stages in a row: stage 0 (gate 1, linked to P's gate) delivers into stage 1 (gate 2); stage 0
 * pauses while gate 2 is under pressure and is woken on its release. Two async senders, 2 events each. */
#define NA 2
#define K(id) 2
#define NS 2
#define CHAIN
#elif SCENARIO == 6
/* A partition: two lanes (stages 0 and 1) share one gate; sender i's events go to lane i. */
#define NA 2
#define K(id) 2
#define NS 2
#define PARTITION
#elif SCENARIO == 7
/* One stage, a consumer that keeps draining, an async sender with 2 events, an async sender with
 * 1 event that may be cancelled at any time (while it waits, too), and a sync sender (next) with
 * 1 event. */
#define NA 2
#define K(id) (id == 0 -> 2 : 1)
#define NS 1
#define CANCEL
#define NSYNC 1
#endif

#ifndef NSYNC
#define NSYNC 0
#endif
#ifdef PARTITION
#define UG(s) 1
#define ROUTE(id) (id)
#else
#define UG(s) (s + 1)
#define ROUTE(id) 0
#endif
#ifdef CHAIN
#define DG(s) (s == 0 -> 2 : 0)
#else
#define DG(s) 0
#endif
#define NG 3          /* gate 0: P's (the producer's), gates 1-2: the stages' */
#define PG 0
#define LOW (LIM / 2)
#define BIT(i) (1 << (i))

/* The buffer of a stage fed only by async senders: at most bufferLimit + its async senders (stage
 * 1 of the chain: fed by stage 0's drain, one event in hand; a partition lane: by one sender). With
 * a sync sender there is no bound (next never waits). */
#if NSYNC > 0
#define BOUND(s) 255
#elif defined(CHAIN)
#define BOUND(s) (s == 0 -> LIM + NA : LIM + 1)
#elif defined(PARTITION)
#define BOUND(s) (LIM + 1)
#else
#define BOUND(s) (LIM + NA)
#endif

/* Waiter states (DeliveryWaiter.State, plus NOWAITER and the value it was resumed with). */
#define W_NONE      0
#define W_INITIAL   1
#define W_SUSPENDED 2
#define W_CANCELLED 3
#define W_RESUMED   4   /* resumed by delivered() */
#define W_THROWN    5   /* resumed by cancel() (CancellationError) */

/* Gates. */
short cnt[NG];     /* count (may go below 0 for a moment) */
bool  fin[NG];     /* isFinished (producer gate) */
bool  prs[NG];     /* pressured: count > 0 && !isFinished */
byte  link[NG];    /* stage gate g -> P's gate: number of links (dependents) */
byte  waitm;       /* P's gate: waiting senders (bitmask) */
byte  wakem[NG];   /* stage gate: stages to wake on release (bitmask) */

/* Stages (DeliverOnStateMachine + ScheduledDelivery). */
byte  buf[2];      /* events waiting */
bool  drn[2];      /* isDraining */
bool  up[2];       /* underPressure */
bool  ended[2];    /* hasEnded */
bool  gone[2];     /* observer == nil (disposed, or the end delivered) */
bool  stopped[2];  /* disposedFlag */
byte  sched[2];    /* scheduled drains not yet started */
bool  running[2];  /* a drain runs */
bool  cstop[2];    /* the consumer stopped for good */

/* P: delivery rights and pending queue. */
bool  prights;
byte  pqa;         /* async senders' queued events (bitmask) */
byte  pqs;         /* sync sender's queued events */
bool  pqend;       /* the end queued */
bool  pfinReq;     /* finishRequested */
bool  pended;      /* the end was delivered: later events reach nobody */

/* Senders. */
byte  wst[2];      /* DeliveryWaiter state */
bool  cancelReq[2];
bool  inScope[2];  /* inside withTaskCancellationHandler */
byte  ndone;       /* senders returned (async and sync) */
bool  endersDone;  /* the disposer / ender has returned (the quiescence check waits for it) */
#if NSYNC > 0
#define NSENDERS (NA + 1)
#else
#define NSENDERS NA
#endif

/* Locals every process that performs gate operations declares. */
#define GATE_LOCALS byte gd, gw; bool gr, gs; byte lw; bool gsum

/* P's gate (no dependents, no wakers): count +-1, on release resume every waiter. */
inline leafOp(delta) {
  d_step {
    cnt[PG] = cnt[PG] + delta;
    if
    :: delta < 0 && cnt[PG] == 0 -> lw = waitm; waitm = 0
    :: else -> lw = 0
    fi;
    prs[PG] = (cnt[PG] > 0 && !fin[PG])
  }
  resumeAll()
}

/* carryOut's waiters (lw): waiter.delivered() for each, one step each (lw is cleared as it goes). */
inline resume1(i) {
  if
  :: lw & BIT(i) ->
     d_step { if :: wst[i] == W_SUSPENDED -> wst[i] = W_RESUMED :: else -> skip fi; lw = lw & ~BIT(i) }
  :: else -> skip
  fi
}
inline resumeAll() {
  resume1(0);
  resume1(1)
}

/* A stage gate: raise (delta 1) or release (delta -1); the transition is decided under the lock,
 * carried out after it: dependents (P's gate, once per link), then wakers. */
inline gateOp(g, delta) {
  d_step {
    cnt[g] = cnt[g] + delta;
    if
    :: delta > 0 && cnt[g] == 1 -> gd = link[g]; gw = 0
    :: delta < 0 && cnt[g] == 0 -> gd = 2 * link[g]; gw = wakem[g]; wakem[g] = 0
    :: else -> gd = 0; gw = 0
    fi;
    assert(gd <= 2);                 /* at most one link (the model's one observation of P) */
    prs[g] = (cnt[g] > 0)
  }
  if                                 /* the dependent: raised (gd 1) or released (gd 2) */
  :: gd == 1 -> gd = 0; leafOp(1)
  :: gd == 2 -> gd = 0; leafOp(-1)
  :: else -> skip
  fi;
  wake1(0);                          /* the wakers: scheduleDrain */
  wake1(1)
}
inline wake1(i) {
  if
  :: gw & BIT(i) -> d_step { assert(drn[i]); sched[i]++; gw = gw & ~BIT(i) }
  :: else -> skip
  fi
}

/* ObserverBox.deinit: removeDependent(P's gate). */
inline unlink(g) {
  d_step {
    if
    :: link[g] > 0 -> link[g]--; gr = (cnt[g] > 0)
    :: else -> gr = 0
    fi
  }
  if :: gr -> gr = 0; leafOp(-1) :: else -> skip fi
}

/* The purge of the stage's observation of P (the box released: unlink). It may come at once, late
 * (P's holder purges between items) or, for the model's purpose, never: the stage's own release
 * must free the senders by itself. -DALWAYS_PURGE: it always happens, here. */
inline purge(g) {
#ifdef ALWAYS_PURGE
  unlink(g)
#else
  if :: unlink(g) :: skip fi
#endif
}

/* ScheduledDelivery.send(_:) into stage s: eventReceived under the lock, then perform. */
inline stageSend(s) {
  d_step {
    if
    :: gone[s] || ended[s] -> gr = 0; gs = 0
    :: else ->
       buf[s]++;
       assert(buf[s] <= BOUND(s));                  /* async senders only: limit + senders */
       gs = !drn[s]; drn[s] = 1;
       if
       :: !up[s] && buf[s] >= LIM -> up[s] = 1; gr = 1
       :: else -> gr = 0
       fi
    fi
  }
  if :: gr -> gr = 0; gateOp(UG(s), 1) :: else -> skip fi;
  if :: gs -> d_step { sched[s]++; gs = 0 } :: else -> skip fi
}

/* ScheduledDelivery.finish(): the upstream ended. */
inline stageFinish(s) {
  d_step {
    if
    :: gone[s] || ended[s] -> gs = 0
    :: else -> ended[s] = 1; gs = !drn[s]; drn[s] = 1
    fi;
#ifdef NO_RELEASE_AT_END
    gr = 0
#else
    gr = up[s]; up[s] = 0
#endif
  }
  if :: gr -> gr = 0; gateOp(UG(s), -1) :: else -> skip fi;
  if :: gs -> d_step { sched[s]++; gs = 0 } :: else -> skip fi
}

/* ScheduledDelivery.dispose() of a stage whose upstream is P: flag, disposed(), upstream.dispose()
 * (the purge: unlink), settle. */
inline stageDisposeLeaf(s) {
  d_step { gr = !stopped[s]; stopped[s] = 1 }
  if
  :: gr ->
     d_step { gr = up[s]; up[s] = 0; gone[s] = 1; buf[s] = 0 };
     gsum = gr; gr = 0;
     purge(UG(s));
#ifdef NO_RELEASE_ON_DISPOSE
     gsum = 0
#else
     if :: gsum -> gsum = 0; gateOp(UG(s), -1) :: else -> skip fi
#endif
  :: else -> skip
  fi
}

/* P delivers one item to its observer (the stage's send, or the router's; or the end). */
inline pDeliver(isEnd, id) {
  if
  :: (isEnd) ->
     pended = 1;
     /* the box ends: `finished` (the stage's finish()), then it is released (unlink) */
     stageFinish(0);
#ifdef PARTITION
     stageFinish(1);
#endif
     purge(UG(0))
  :: !(isEnd) && pended -> skip          /* a finished producer reaches nobody */
  :: !(isEnd) && !pended -> stageSend(ROUTE(id))
  fi
}

/* The holder's loop: every queued item, in any order, then the rights back. */
inline pDrainQueue() {
  do
  :: atomic { pqa & BIT(0) -> pqa = pqa & ~BIT(0) }; pDeliver(0, 0)
  :: atomic { pqa & BIT(1) -> pqa = pqa & ~BIT(1) }; pDeliver(0, 1)
  :: atomic { pqs > 0 -> pqs-- }; pDeliver(0, 0)
  :: atomic { pqend -> pqend = 0 }; pDeliver(1, 0)
  :: d_step { pqa == 0 && pqs == 0 && !pqend -> prights = 0 }; break
  od
}

/* An item into P: take the rights and deliver it, or queue it (kind: 0 async id, 1 sync, 2 end). */
inline pSubmit(kind, id) {
  d_step {
    if
    :: !prights -> prights = 1; gsum = 1
    :: else ->
       gsum = 0;
       if
       :: kind == 0 -> pqa = pqa | BIT(id)
       :: kind == 1 -> pqs++
       :: else -> pqend = 1
       fi
    fi
  }
  if
  :: gsum -> gsum = 0; pDeliver((kind) == 2, id); pDrainQueue()
  :: else -> skip
  fi
}

/* The cancellation handler (onCancel): waiter.cancel(); gate.forget(waiter). */
inline onCancel(id) {
  d_step {
    if
    :: wst[id] == W_SUSPENDED -> wst[id] = W_THROWN
    :: wst[id] == W_INITIAL -> wst[id] = W_CANCELLED
    :: else -> skip
    fi
  };
  d_step { waitm = waitm & ~BIT(id) }
}

proctype Async(byte id) {
  GATE_LOCALS;
  byte k = 0;
  bool r;
  do
  :: k < K(id) ->
waitLoop:
     /* waitUntilWritable */
     if :: cancelReq[id] -> goto thrown :: else -> skip fi;         /* Task.checkCancellation() */
     if :: pfinReq -> goto send :: else -> skip fi;                  /* isFinished */
     if :: !prs[PG] -> goto send :: else -> skip fi;                 /* gate.isPressured */
     d_step { wst[id] = W_INITIAL; inScope[id] = 1; r = cancelReq[id] };  /* new waiter; handler installed */
     if :: r -> r = 0; onCancel(id) :: else -> skip fi;              /* cancelled already: onCancel at once */
     d_step {                                                        /* waiter.suspend(continuation) */
       if
       :: wst[id] == W_INITIAL -> wst[id] = W_SUSPENDED; r = 1
       :: else -> wst[id] = W_THROWN; r = 0                          /* cancelled first: resumed, throws */
       fi
     };
     if
     :: r ->
        d_step {                                                     /* gate.waitForRelease(waiter) */
#ifdef LOST_WAKEUP
          waitm = waitm | BIT(id);
#else
          if
          :: cnt[PG] > 0 && !fin[PG] -> waitm = waitm | BIT(id)
          :: else ->                                                 /* released meanwhile: waiter.delivered() */
             if :: wst[id] == W_SUSPENDED -> wst[id] = W_RESUMED :: else -> skip fi
          fi;
#endif
          r = 0
        }
     :: else -> skip
     fi;
     (wst[id] == W_RESUMED || wst[id] == W_THROWN);                  /* suspended until resumed */
     d_step { inScope[id] = 0; r = (wst[id] == W_THROWN); wst[id] = W_NONE };
     if :: r -> goto thrown :: else -> goto waitLoop fi;
send:
     skip;
     pSubmit(0, id);
     (!(pqa & BIT(id)));                                             /* suspended until delivered */
     k++
  :: else -> break
  od;
thrown:
  skip;
  d_step { inScope[id] = 0; wst[id] = W_NONE; ndone++ }
}

#if NSYNC > 0
proctype Sync() {
  GATE_LOCALS;
  byte k = 0;
  do
  :: k < NSYNC -> pSubmit(1, 0); k++        /* next: never waits */
  :: else -> break
  od;
  ndone++
}
#endif

#ifdef CANCEL
proctype Canceller() {
  GATE_LOCALS;
  bool h;
  /* Task.cancel(): the flag, then the handler if one is installed */
  d_step { cancelReq[1] = 1; h = inScope[1] };
  if :: h -> onCancel(1) :: else -> skip fi
}
#endif

/* The scheduler running stage s's drains (drainOneByOne). */
proctype Drain(byte s) {
  GATE_LOCALS;
  byte step;   /* 1 deliver (rel: release first), 2 finish (rel: settle releases), 0 stop */
  bool rel;
end_idle:
  do
  :: d_step { sched[s] > 0 -> sched[s]--; assert(!running[s]); running[s] = 1 };
     do
     :: true ->
        /* pausesForDownstream: isPressured (lock-free), then wakeOnRelease under the lock */
        if
        :: DG(s) != 0 && prs[DG(s)] ->
           d_step {
#ifdef NO_WAKE_RECHECK
             wakem[DG(s)] = wakem[DG(s)] | BIT(s); rel = 1
#else
             if
             :: cnt[DG(s)] > 0 -> wakem[DG(s)] = wakem[DG(s)] | BIT(s); rel = 1
             :: else -> rel = 0
             fi
#endif
           };
           if :: rel -> rel = 0; break :: else -> skip fi
        :: else -> skip
        fi;
        d_step {                                                     /* nextEvent */
          if
          :: gone[s] -> step = 0
          :: !gone[s] && buf[s] == 0 && ended[s] ->
             step = 2; rel = up[s]; up[s] = 0; gone[s] = 1            /* ended() = disposed() */
          :: !gone[s] && buf[s] == 0 && !ended[s] -> step = 0; drn[s] = 0
          :: else ->
             step = 1; buf[s]--;
             rel = (up[s] && buf[s] <= LOW);                         /* releasesPressure */
             if :: rel -> up[s] = 0 :: else -> skip fi
          fi
        };
        if
        :: atomic { step == 0 -> break }
        :: atomic { step == 2 -> step = 0 };                          /* deliverEnd */
           d_step { gsum = !stopped[s]; stopped[s] = 1 };
           if :: rel -> rel = 0; gateOp(UG(s), -1) :: else -> skip fi; /* settle */
#ifdef CHAIN
           if :: gsum && s == 0 -> gsum = 0; stageFinish(1) :: else -> skip fi;  /* finished: the next stage's end */
#endif
           gsum = 0;
           break
        :: atomic { step == 1 -> step = 0 };
           if :: rel -> rel = 0; gateOp(UG(s), -1) :: else -> skip fi; /* the release first */
           if :: stopped[s] -> break :: else -> skip fi;              /* isStopped */
#ifdef CHAIN
           if :: s == 0 -> stageSend(1) :: else -> skip fi;           /* the observer: stage 1's send */
#endif
#ifdef MAYSTOP
           if
           :: skip
           :: s == NS - 1 -> cstop[s] = 1;                             /* the consumer stops for good */
end_stopped:  false
           fi
#endif
           skip
        fi
     od;
     running[s] = 0
  od
}

#if defined(DISPOSER) || defined(ENDER)
proctype Ender() {
  GATE_LOCALS;
#ifdef DISPOSER
  stageDisposeLeaf(0);
#elif ENDER == 1
  /* the stage's upstream ends without P finishing (take(n), say): stage.finish(); the box of the
   * observation of P is released after it (or late) */
  stageFinish(0);
  purge(UG(0));
#else
  /* P.finish(): finishRequested, gate.finish(), the end as a work item */
  pfinReq = 1;
  d_step { fin[PG] = 1; lw = waitm; waitm = 0; prs[PG] = 0 };
  resumeAll();
  pSubmit(2, 0);
#endif
  endersDone = 1
}
#endif

init {
  byte i;
  atomic {
    /* the stage registers its observation of P: ObserverBox.init -> stage gate addDependent(P's gate) */
    link[UG(0)] = 1;
    i = 0;
    do :: i < NA -> run Async(i); i++ :: else -> break od;
#if NSYNC > 0
    run Sync();
#endif
#ifdef CANCEL
    run Canceller();
#endif
    i = 0;
    do :: i < NS -> run Drain(i); i++ :: else -> break od;
#if defined(DISPOSER) || defined(ENDER)
    run Ender();
#else
    endersDone = 1;
#endif
  }
#ifndef NOFINAL
  /* Quiescence: nothing else can move (the liveness runs build with -DNOFINAL: the claim alone). */
  timeout ->
  d_step {
    assert(ndone == NSENDERS);                       /* no sender waits for ever */
    assert(waitm == 0);                              /* no waiter left behind */
    assert(!prights && pqa == 0 && pqs == 0);
    i = 0;
    do
    :: i < NS ->
       /* no drain left scheduled, no stage left with events and no drain coming (unless its
        * consumer stopped, or it is paused by a downstream under pressure that will wake it) */
       assert(cstop[i] || sched[i] == 0);
       assert(cstop[i] || gone[i] || buf[i] == 0 ||
              (DG(i) != 0 && cnt[DG(i)] > 0 && (wakem[DG(i)] & BIT(i))));
       assert(!gone[i] || !up[i]);
       i++
    :: else -> break
    od;
    /* each stage gate's count is the number of its stages under pressure (its flag) */
#ifdef PARTITION
    assert(cnt[1] == up[0] + up[1]);
#else
    assert(cnt[1] == up[0]);
    assert(NS < 2 || cnt[2] == up[1]);
#endif
    /* P's count: the number of linked stage gates under pressure */
    assert(cnt[PG] == (link[1] > 0 && cnt[1] > 0 -> 1 : 0) + (link[2] > 0 && cnt[2] > 0 -> 1 : 0));
    /* no stage waits to be woken by a gate that is not under pressure */
    assert(cnt[1] > 0 || wakem[1] == 0);
    assert(cnt[2] > 0 || wakem[2] == 0)
  }
#endif
}

/* Liveness: every sender returns (under weak fairness). */
ltl returns { <> (ndone == NSENDERS) }
