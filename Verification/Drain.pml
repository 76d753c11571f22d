/*
 * Drain.pml: a Promela model of Bond's one serializer, `DeliveryRights` (Core/DeliveryRights.swift:
 * the count, its vacancy flag, the drain loop with its bounded budget, leaving the rights vacant
 * and the worker that claims them), as an `EventProducer` uses it (the pending queue, the batch,
 * disposal), checked with spin by Verification/check-model (see Verification/README.md).
 * `ObservableArray`'s hand-off runs the same type and loop over its outbox (not modelled apart; its
 * senders count under its lock with `takeOrCountLocked` and never claim a vacancy: its worker does).
 *
 * SOURCE MAP (Sources/Bond/Core/)
 *   model step                         Swift (file:function)
 *   next(p, e)                         EventProducer.swift:next -> EventProducer+Drain.swift:submit
 *     CAS_WIP fast path                  withRightsIfIdle: rights.takeIfIdle() (compareExchange 0 -> 1); deliverDraining; finishDraining(accounted: 1, budget: limit)
 *     else submitContended(W_EVENT)      push; rights.counted(1) -> drain(missed: 1 or 0, budget: limit)
 *   (finish() is next's shape with the end: not modelled separately, see README)
 *   observe(p, o)                      EventProducer+Drain.swift:register
 *     CAS_WIP fast path                  takeIfIdle; registerDraining(box); finishDraining(accounted: 1, budget: 0)
 *     else submitContended(W_REGISTER)   push; counted(1); took -> drain(budget: 0)
 *   submitContended(p, kind, arg)      EventProducer+Drain.swift:submitContended
 *     push under the lock                withPending { push }
 *     old = count++                      DeliveryRights.counted: wrappingAdd(1).oldValue: 0 -> took (missed 1);
 *                                        flag set -> claimVacant() (missed 0); (.purge: purgeDraining()); drain
 *   finishDraining(p)                  EventProducer+Drain.swift:finishDraining -> DeliveryRights.giveBack
 *     m = count -= accounted             wrappingSubtract(accounted).newValue; 0 -> return; drain(missed: m, budget:)
 *   drainQueued(p)                     DeliveryRights.swift:drain(_:missed:budget:)
 *     swap if the batch is empty         refillDraining: if batch.isEmpty { withPending { swap(&$0.queue, &batch) } }
 *     budget 0 -> leaveVacant            while let sender = nextSenderDraining() { if budget == 0 { leaveVacant; return }; budget -= 1; performNextDraining() }
 *     purgeRequested -> purgeDraining    performNextDraining: if purgeRequested.load() { purgeDraining() } after each item
 *     m = count -= m                     missed = giveBack(missed); 0 -> return; else loop
 *   leaveVacant(p)                     DeliveryRights.swift:leaveVacant
 *     vacant = 1, dispatched = 1         count.bitwiseOr(vacant); workerDispatched.exchange(true) false -> one dispatch
 *   CLAIM(p)                           DeliveryRights.swift:claimVacant: count.bitwiseAnd(~vacant), the flag seen -> holder
 *   Worker(p)                          DeliveryRights.swift:drainAsWorker: workerDispatched.store(false); claimVacant(); drain(missed: 0, budget: limit)
 *   deliverDraining(p, e), DELIVER     EventProducer+Drain.swift:deliverDraining
 *     replay append                      replay.append; flag load then call: if !disposed.load() { handler(event) }
 *   registerDraining(p, o)             EventProducer+Drain.swift:registerDraining
 *     replay (flag checked)              replay loop; guard !disposed.load(); append to observers
 *   purgeDraining(p)                   EventProducer+Drain.swift:purgeDraining
 *     purgeRequested = 0                 purgeRequested.exchange(false); flag load, release or keep
 *   dispose(p, o)                      Observation.swift:dispose (disposed.exchange(true)), then
 *                                      EventProducer+Drain.swift:observationDisposed
 *     CAS_WIP -> purge, finish           compareExchange; purgeDraining; finishDraining(accounted: 1, budget: 0)
 *     else request + queue               purgeRequested.store(true); submitContended(.purge) (budget 0)
 *   NO_HANDOFF (main at 213df13, before the bounded work): finishDraining(accounted:) and
 *     performPendingDraining drain until the count is 0, whoever the caller: every budget is infinite.
 *   OLD_DISPOSE (main at 820a1cc, before disposal stopped waiting; implies NO_HANDOFF), EventProducer+Drain.swift:
 *     drainer[p] = tid / = 0             45, 59, 74 drainer.store(currentThreadID()); 71 drainer.store(0)
 *     ticket, purgesDone                 168 purgesRequested.add(1); 158-160 purgesDone.store(ticket)
 *     inside = (drainer == tid)          174; 175 submitContended(.purge(ticket))
 *     spin-wait                          176-180 if !insideDelivery { while purgesDone < ticket { yieldThread() } }
 * Not modelled: liveObservers/observerCount (a counter decremented before dispose() returns), the
 * `registered` callback (it runs where the replay ends), the managed lifecycle, deinit, Observable's
 * `latest`, batch updates, `.finish`/`.resume` work items (performed like an event). The drainer
 * visits observers in index order (the Swift code: in registration order); both are one fixed order
 * per delivery.
 *
 * Threads are processes `Thread(tid)`. A call (`next`, `observe`, `dispose`) is a process `Op` run
 * by its thread, which waits for it to return: a call made by an observer's closure from inside a
 * delivery is a nested `Op` with the same `tid`, so the model has a real call stack on each thread
 * (reentrant `next`, `dispose` from inside a delivery of this producer or of another one).
 * The worker that leaveVacant dispatches is the process `Worker(p)` (one per producer, its own
 * thread id WTID(p)): it waits for `dispatched[p]`, claims the rights if they are still vacant (a
 * sender may have claimed them first) and drains with the budget LIMIT, leaving them vacant again
 * when it runs out.
 * Flood scenarios (FLOOD) add a process `Flood` that calls next(FLOODEV) on producer FLOODP for
 * ever; its events carry no ghost position (every flood event is the same value, so the state space
 * stays finite).
 *
 * Atomicity: each `atomic`/`d_step` block is one atomic instruction of the Swift code (a
 * compare-exchange, an add, a subtract, an exchange, a load, a store) or one critical section of
 * the `pending` lock (push; swap of the whole queue). Everything else is a separate step, so spin
 * explores every interleaving between them. The model is sequentially consistent (every atomic
 * of the Swift code on these paths is acquiring-and-releasing or pairs release/acquire).
 *
 * Build switches:
 *   -DSCENARIO=n   which threads, observers and observer actions (see the table at the end)
 *   -DLIMIT=n      the drain's budget for next (Swift: 1,024; here 2 by default)
 *   -DBOUND        assert the bounded-work property: each call performs at most LIMIT (next) or 0
 *                  (observe, dispose) queued work items, in at most LIMIT + 2 drain laps
 *   -DNO_HANDOFF   the drain before the bounded work: every budget infinite, never vacant
 *   -DOLD_DISPOSE  the dispose before it stopped waiting: after queueing the purge, a thread that is not this
 *                  producer's drainer spins (sched_yield) until the purge was executed.
 */

#ifndef SCENARIO
#define SCENARIO 1
#endif
#ifndef LIMIT
#define LIMIT 2
#endif
#ifndef LAPSLACK
#define LAPSLACK 3
#endif
#define INF 255   /* an infinite budget (every budget under NO_HANDOFF), or a worker's bound (none) */
#ifdef OLD_DISPOSE
#define NO_HANDOFF
#endif
#ifdef NO_HANDOFF
#define BUDGET(b) INF
#else
#define BUDGET(b) b
#endif

/* Operations of a call (`Op.kind`) and of an observer's closure (its action). */
#define OP_NONE    0
#define OP_NEXT    1   /* arg: event id (its producer is EVPROD(e)) */
#define OP_OBSERVE 2   /* arg: observer id (its producer is OBSPROD(o)) */
#define OP_DISPOSE 3   /* arg: observer id */

/* Work items of the pending queue (EventProducer.Work). */
#define W_EVENT    1
#define W_REGISTER 2
#define W_PURGE    3

/* ---------------------------------------------------------------------------------------------
 * Scenarios. Each one defines:
 *   NPROD, NOBS, NEV, NTHREADS       sizes (events are 1..NEV, observers 0..NOBS-1)
 *   EVPROD(e), OBSPROD(o)            the producer of an event / observation
 *   REPLAY(p)                        replayLength of producer p (0 or 1)
 *   INITIAL(o)                       observer registered before the threads start
 *   ACT1(o), ARG1(o), ACT2(o), ARG2(o)  what o's closure does on its first delivery (0-2 calls)
 *   SCRIPT_INIT                      each thread's calls: S(thread, step, call, arg)
 *   FLOOD, FLOODP                    (flood scenarios) a process sends into FLOODP for ever
 * ------------------------------------------------------------------------------------------- */
#if SCENARIO == 1
/* One producer (replayLength 1). o0's closure sends e3 into the same producer (reentrant next).
 * T1 sends e1 then e2 (fast and contended paths, per-thread order); T2 observes o2 (replay,
 * registration racing the sender) then disposes o1 while T1 sends (dispose from another thread). */
#define NPROD 1
#define NOBS 3
#define NEV 3
#define NTHREADS 2
#define EVPROD(e) 0
#define OBSPROD(o) 0
#define REPLAY(p) 1
#define INITIAL(o) (o < 2)
#define ACT1(o) (o == 0 -> OP_NEXT : OP_NONE)
#define ARG1(o) 3
#define ACT2(o) OP_NONE
#define ARG2(o) 0
#define SCRIPT_INIT S(1, 0, OP_NEXT, 1); S(1, 1, OP_NEXT, 2); S(2, 0, OP_OBSERVE, 2); S(2, 1, OP_DISPOSE, 1)

#elif SCENARIO == 2
/* One producer. Disposal from inside deliveries: o0's closure disposes o2 (another observer of the
 * same producer), o1's closure disposes o1 itself. T1 sends e1 then e2. T2 observes o3 and
 * disposes it at once (its registration may still be queued behind T1's delivery), then disposes
 * o2 too (a second dispose() racing the one from inside the delivery: harmless). */
#define NPROD 1
#define NOBS 4
#define NEV 2
#define NTHREADS 2
#define EVPROD(e) 0
#define OBSPROD(o) 0
#define REPLAY(p) 0
#define INITIAL(o) (o < 3)
#define ACT1(o) (o == 0 -> OP_DISPOSE : (o == 1 -> OP_DISPOSE : OP_NONE))
#define ARG1(o) (o == 0 -> 2 : 1)
#define ACT2(o) OP_NONE
#define ARG2(o) 0
#define SCRIPT_INIT S(1, 0, OP_NEXT, 1); S(1, 1, OP_NEXT, 2); S(2, 0, OP_OBSERVE, 3); S(2, 1, OP_DISPOSE, 3); S(2, 2, OP_DISPOSE, 2)

#elif SCENARIO == 3
/* Cross-dispose, the shape that deadlocked before disposal stopped waiting: producers P (0) and Q (1). o0 observes
 * P and disposes o3 (an observation of Q); o2 observes Q and disposes o1 (an observation of P).
 * T1 sends e1 into P while T2 sends e2 into Q. */
#define NPROD 2
#define NOBS 4
#define NEV 2
#define NTHREADS 2
#define EVPROD(e) (e == 2 -> 1 : 0)
#define OBSPROD(o) (o < 2 -> 0 : 1)
#define REPLAY(p) 0
#define INITIAL(o) 1
#define ACT1(o) (o == 0 -> OP_DISPOSE : (o == 2 -> OP_DISPOSE : OP_NONE))
#define ARG1(o) (o == 0 -> 3 : 1)
#define ACT2(o) OP_NONE
#define ARG2(o) 0
#define SCRIPT_INIT S(1, 0, OP_NEXT, 1); S(2, 0, OP_NEXT, 2)

#elif SCENARIO == 4
/* Cross observe-then-dispose: o0 (of P) observes o4 (of Q) and disposes it; o2 (of Q) observes o5
 * (of P) and disposes it (the `take(until:)` / "first of two wins" shape). T1 sends e1 into P,
 * T2 sends e2 into Q. */
#define NPROD 2
#define NOBS 6
#define NEV 2
#define NTHREADS 2
#define EVPROD(e) (e == 2 -> 1 : 0)
#define OBSPROD(o) ((o == 0 || o == 1 || o == 5) -> 0 : 1)
#define REPLAY(p) 0
#define INITIAL(o) (o < 4)
#define ACT1(o) (o == 0 -> OP_OBSERVE : (o == 2 -> OP_OBSERVE : OP_NONE))
#define ARG1(o) (o == 0 -> 4 : 5)
#define ACT2(o) (o == 0 -> OP_DISPOSE : (o == 2 -> OP_DISPOSE : OP_NONE))
#define ARG2(o) (o == 0 -> 4 : 5)
#define SCRIPT_INIT S(1, 0, OP_NEXT, 1); S(2, 0, OP_NEXT, 2)

#elif SCENARIO == 5
/* Nested producers: o0 (of P) sends e3 into Q (this thread takes Q's rights inside P's delivery);
 * o2 (of Q) sends e4 back into P (queued: P is held by this very thread) and disposes o1 (of P,
 * from inside a delivery of another producer). T2 sends e2 into Q, then disposes o0 (from outside,
 * while o0 may be running on T1). */
#define NPROD 2
#define NOBS 4
#define NEV 4
#define NTHREADS 2
#define EVPROD(e) ((e == 2 || e == 3) -> 1 : 0)
#define OBSPROD(o) (o < 2 -> 0 : 1)
#define REPLAY(p) 0
#define INITIAL(o) (o < 4)
#define ACT1(o) (o == 0 -> OP_NEXT : (o == 2 -> OP_NEXT : OP_NONE))
#define ARG1(o) (o == 0 -> 3 : 4)
#define ACT2(o) (o == 2 -> OP_DISPOSE : OP_NONE)
#define ARG2(o) 1
#define SCRIPT_INIT S(1, 0, OP_NEXT, 1); S(2, 0, OP_NEXT, 2); S(2, 1, OP_DISPOSE, 0)

#elif SCENARIO == 6
/* Three threads on one producer: T1 and T2 send (contended path, the drainer's loop taking work
 * pushed while it delivers), T3 disposes o1 from outside while they send. */
#define NPROD 1
#define NOBS 2
#define NEV 2
#define NTHREADS 3
#define EVPROD(e) 0
#define OBSPROD(o) 0
#define REPLAY(p) 0
#define INITIAL(o) 1
#define ACT1(o) OP_NONE
#define ARG1(o) 0
#define ACT2(o) OP_NONE
#define ARG2(o) 0
#define SCRIPT_INIT S(1, 0, OP_NEXT, 1); S(2, 0, OP_NEXT, 2); S(3, 0, OP_DISPOSE, 1)

#elif SCENARIO == 7
/* Flood (the bounded work): the Flood process sends into P for ever (o0 receives it). T1 observes o1,
 * sends e1, disposes o1: each call must return after a bounded amount of work, whatever the
 * flood does; e1 reaches o1, and o1's closure is released. */
#define FLOOD 1
#define FLOODP 0
#define NPROD 1
#define NOBS 2
#define NEV 1
#define NTHREADS 1
#define EVPROD(e) 0
#define OBSPROD(o) 0
#define REPLAY(p) 0
#define INITIAL(o) (o == 0)
#define ACT1(o) OP_NONE
#define ARG1(o) 0
#define ACT2(o) OP_NONE
#define ARG2(o) 0
#define SCRIPT_INIT S(1, 0, OP_OBSERVE, 1); S(1, 1, OP_NEXT, 1); S(1, 2, OP_DISPOSE, 1)

#elif SCENARIO == 8
/* Flood with nested calls and a second producer: the Flood process sends into P for ever. o0 (of
 * P) sends e1 into Q from inside its first delivery (on whichever thread delivers P: the flood, T1
 * or P's worker), taking Q's rights or queueing. o1 (of Q) disposes o0 from inside its first
 * delivery. T1 sends e2 into Q, then disposes o0 from outside, then sends e3 into P (flooded). */
#define FLOOD 1
#define FLOODP 0
#define NPROD 2
#define NOBS 2
#define NEV 3
#define NTHREADS 1
#define EVPROD(e) (e == 3 -> 0 : 1)
#define OBSPROD(o) o
#define REPLAY(p) 0
#define INITIAL(o) 1
#define ACT1(o) (o == 0 -> OP_NEXT : OP_DISPOSE)
#define ARG1(o) (o == 0 -> 1 : 0)
#define ACT2(o) OP_NONE
#define ARG2(o) 0
#define SCRIPT_INIT S(1, 0, OP_NEXT, 2); S(1, 1, OP_DISPOSE, 0); S(1, 2, OP_NEXT, 3)

#else
#error "unknown SCENARIO"
#endif

#define QSIZE 6   /* the pending queue holds at most this many work items (asserted) */
/* The flood pushes only while fewer than FLOODCAP of its items are pending: a finite model of a
 * sender faster than any drainer (it refills the queue as soon as a drainer swaps it out); the
 * other threads' pushes always fit (QSIZE). */
#ifndef FLOODCAP
#define FLOODCAP 1
#endif
#define FLOODEV (NEV + 1)             /* the flood's event (no ghost position) */
#define FLOODTID (NTHREADS + 1)       /* the flood's thread id */
#define WTID(p) (NTHREADS + 2 + p)    /* thread id of p's hand-off worker */
#define NTIDS (NTHREADS + 2 + NPROD)
#define ISFLOOD(e) (e == FLOODEV)

/* ------------------------------------------------------------------ the producers' state ---- */
byte wip[NPROD];                               /* DeliveryRights.count, without the vacancy flag */
bool vacant[NPROD];                            /* DeliveryRights.count's vacancy flag */
chan pend[NPROD] = [QSIZE] of { byte, byte };  /* EventProducer.pending.queue: (kind, arg) */
chan batch[NPROD] = [QSIZE] of { byte, byte }; /* EventProducer.batch (drainer-owned) */
bool dispatched[NPROD];                        /* leaveVacant's dispatch to p's worker, not yet started */
bool inList[NOBS];                        /* o is in EventProducer.observers (drainer-owned) */
byte replayEv[NPROD];                     /* EventProducer.replay (replayLength 1); 0: empty */
#ifdef OLD_DISPOSE
byte drainer[NPROD];                      /* EventProducer.drainer (thread id; 0: none) */
byte purgesRequested[NPROD];              /* EventProducer.purgesRequested */
byte purgesDone[NPROD];                   /* EventProducer.purgesDone */
#else
bool purgeRequested[NPROD];               /* EventProducer.purgeRequested */
#endif
bool disposed[NOBS];                      /* Observation.disposed */

/* --------------------------------------------------------------------------- ghost state ---- */
byte holder[NPROD];           /* thread holding p's delivery rights (0: none) */
bool observeReturned[NOBS];   /* observe() has returned */
bool disposeReturned[NOBS];   /* dispose() has returned */
bool inDelivery[NOBS];        /* a delivery to o has started (flag checked) and not returned */
bool released[NOBS];          /* o's closure was released (purged, or its registration dropped) */
bool listedAtDispose[NOBS];   /* o was registered when its flag was set */
byte dispAt[NOBS];            /* ndel[p] when o's flag was set */
bool acted[NOBS];             /* o's closure has made its calls (on its first delivery) */
byte regPos[NOBS];            /* ndel[p] when o was registered: it must get every later event */
byte lastPos[NOBS];           /* position (in p's delivery order) of the last event o received */
byte ndel[NPROD];             /* events p has delivered (the position of the latest; no flood) */
byte nsent[NPROD];            /* events sent into p (no flood) */
byte pos[NEV + 1];            /* position of event e in its producer's delivery order; 0: none */
byte mustGet[NEV + 1];        /* observers (bit mask) whose observe() returned before next(e) */
byte sender[NEV + 1];         /* thread that sent e */
byte sendSeq[NEV + 1];        /* e's rank among the sends of its thread */
byte sends[NTIDS + 1];
byte workersBusy;             /* vacancies not yet claimed, and the worker's drains not yet returned */
#ifdef FLOOD
byte nfWork;                  /* non-flood work items queued or being performed, and nested calls running */
#define NF_INC(kind, arg) if :: !(kind == W_EVENT && ISFLOOD(arg)) -> nfWork++ :: else -> skip fi
#define NF_DEC(kind, arg) if :: !(kind == W_EVENT && ISFLOOD(arg)) -> nfWork-- :: else -> skip fi
#else
#define NF_INC(kind, arg) skip
#define NF_DEC(kind, arg) skip
#endif
byte threadsDone;
bool finished;
hidden byte scrK[12];         /* the threads' scripts (constant, set by init) */
hidden byte scrA[12];
#define S(t, n, k, a) scrK[(t - 1) * 4 + n] = k; scrA[(t - 1) * 4 + n] = a

/* --------------------------------------------------------------- the producer's protocol ---- */
/* Each inline runs in a process (a thread's call) with the locals declared in CALL_LOCALS:
 * m: missed; bud: the call's budget; lim, work, laps (-DBOUND): the bounded-work check. */
#ifdef BOUND
#define CALL_LOCALS chan r = [1] of { bit }; bit d; byte i, j, k, a, m, old, tk, ticket, cas, bud, lim, work, laps; bit ok, inside
#define SET_LIM(b) lim = b
#define END_CALL bud = 0; lim = 0; work = 0; laps = 0
#else
#define CALL_LOCALS chan r = [1] of { bit }; bit d; byte i, j, k, a, m, old, tk, ticket, cas, bud; bit ok, inside
#define SET_LIM(b) skip
#define END_CALL bud = 0
#endif

/* The delivery rights change hands only through the count and its vacancy (ghost check of mutual exclusion). */
#define TAKE_RIGHTS(p) assert(holder[p] == 0); holder[p] = tid
#define HOLDS(p) assert(holder[p] == tid)

/* Property 6 (-DBOUND): the work a call performs for others. `lim` is the specification's bound
 * for the call (LIMIT for next, 0 for observe and dispose; INF for a worker: not a call), set
 * independently of the budget the code uses, so NO_HANDOFF (every budget infinite) violates it. */
#ifdef BOUND
#define COUNT_WORK if :: lim != INF -> work++; assert(work <= lim) :: else -> skip fi
#define COUNT_LAP  if :: lim != INF -> laps++; assert(laps <= 2 * lim + LAPSLACK) :: else -> skip fi
#else
#define COUNT_WORK skip
#define COUNT_LAP  skip
#endif
#define SET_LIMIT(b) bud = BUDGET(b); SET_LIM(b)

/* The closure of o (its first delivery) makes its calls on this thread, from inside the delivery. */
inline observerCalls(o) {
  acted[o] = 1;
  if :: ACT1(o) != OP_NONE -> atomic { NF_INC(0, 0); run Op(tid, ACT1(o), ARG1(o), r) }; r ? d :: else -> skip fi;
  if :: ACT2(o) != OP_NONE -> atomic { NF_INC(0, 0); run Op(tid, ACT2(o), ARG2(o), r) }; r ? d :: else -> skip fi
}

/* One delivery of event e to o: `if !disposed.load() { handler(e) }`. The delivery starts at the
 * flag load. A closure that makes no call is one step; one that calls leaves ok == 1 and
 * inDelivery[o] set until its calls return. */
#define DELIVER(o, e)                                                                     \
  if                                                                                       \
  :: !disposed[o] ->                                                                       \
     assert(!disposeReturned[o]);  /* property 3: no delivery starts after dispose() */    \
     assert(!released[o]);         /* the closure is alive */                              \
     if                                                                                    \
     :: !ISFLOOD(e) ->                                                                     \
        assert(pos[e] == lastPos[o] + 1); /* properties 1, 2: the single order, no gap */  \
        lastPos[o] = pos[e]                                                                \
     :: else -> skip                                                                       \
     fi;                                                                                   \
     if                                                                                    \
     :: !acted[o] && ACT1(o) != OP_NONE -> inDelivery[o] = 1; ok = 1                       \
     :: else -> ok = 0                                                                     \
     fi                                                                                    \
  :: else -> ok = 0                                                                        \
  fi

/* deliverDraining(event): every registered observer, in order, flag checked before each. */
inline deliverDraining(p, e) {
  d_step {
    HOLDS(p);
    if :: !ISFLOOD(e) -> ndel[p]++; pos[e] = ndel[p] :: else -> skip fi;
    if :: REPLAY(p) -> replayEv[p] = e :: else -> skip fi;
    i = 0
  };
  do
  :: atomic {
       do
       :: i < NOBS && !(OBSPROD(i) == p && inList[i]) -> i++
       :: else -> break
       od;
       if
       :: i == NOBS -> i = 0; break
       :: else -> DELIVER(i, e)
       fi;
       if :: !ok -> i++ :: else -> skip fi
     };
     if
     :: ok -> observerCalls(i); atomic { inDelivery[i] = 0; ok = 0; i++ }
     :: else -> skip
     fi
  od
}

/* registerDraining(box): the replay, then the observer joins `observers` unless disposed. */
inline registerDraining(p, o) {
  atomic {
    HOLDS(p);
    regPos[o] = ndel[p]; lastPos[o] = ndel[p];
    ok = 0;
    if
    :: REPLAY(p) && replayEv[p] != 0 -> lastPos[o] = ndel[p] - 1; DELIVER(o, replayEv[p])
    :: else -> skip
    fi
  };
  if :: ok -> observerCalls(o); atomic { inDelivery[o] = 0; ok = 0 } :: else -> skip fi;
  atomic {   /* guard !disposed.load() else return; append to observers */
    if
    :: !disposed[o] -> inList[o] = 1
    :: else -> released[o] = 1    /* the box is dropped with its work item */
    fi
  }
}

/* purgeDraining(): removes and releases the disposed observers. One step: the request is taken
 * (new protocol) and every flag loaded at one instant (see README: why this is sound). */
inline purgeDraining(p) {
  d_step {
    HOLDS(p);
#ifndef OLD_DISPOSE
    purgeRequested[p] = 0;                   /* purgeRequested.exchange(false) */
#endif
    j = 0;
    do
    :: j < NOBS ->
       if
       :: OBSPROD(j) == p && inList[j] && disposed[j] ->
          assert(!inDelivery[j]);            /* never released while a delivery to it runs */
          inList[j] = 0; released[j] = 1
       :: else -> skip
       fi;
       j++
    :: else -> break
    od;
    j = 0;
#ifdef OLD_DISPOSE
    if :: tk > purgesDone[p] -> purgesDone[p] = tk :: else -> skip fi;
#endif
    tk = 0
  }
}

/* leaveVacant(drainer): the holder sets the vacancy flag (count.bitwiseOr(vacant)), the batch's
 * leftovers in place, and dispatches a worker unless one is dispatched and not started
 * (`workerDispatched`, here `dispatched[p]`): that one starts after the vacancy and claims it.
 * The flag and the dispatch are one step here, and so are the worker's start and its claim: the
 * only thread that reads `workerDispatched` is the worker, whose start only enables its claim, so
 * the interleavings between the two steps of either pair add a failed claim at most (a dispatch
 * that comes too late finds the rights claimed), never a vacancy without a worker to come. */
inline leaveVacant(p) {
  atomic {
    HOLDS(p); holder[p] = 0; vacant[p] = 1; workersBusy++;  /* count.bitwiseOr(vacant) */
    dispatched[p] = 1        /* workerDispatched.exchange(true): false -> dispatch (else one is coming) */
  }
}

/* claimVacant(): count.bitwiseAnd(~vacant); the caller that saw the flag holds the rights, and
 * drains from missed 0 (the batch's leftovers first, then the pending queue). */
#define CLAIM(p) if :: vacant[p] -> vacant[p] = 0; cas = 1; TAKE_RIGHTS(p); workersBusy-- :: else -> cas = 0 fi

/* drainQueued(missed: m, budget: bud). The batch is drainer-owned (only the holder reads or writes
 * it), so its emptiness test is merged with the step that follows it. */
inline drainQueued(p) {
  do
  :: atomic {                               /* if batch.isEmpty { withPending { swap } } */
       COUNT_LAP;
       HOLDS(p);
       if
       :: len(batch[p]) == 0 ->
          do
          :: pend[p] ? k, a -> batch[p] ! k, a
          :: empty(pend[p]) -> break
          od
       :: else -> skip
       fi
     };
     do
     :: atomic {                            /* budget spent: leave the rights vacant, return */
          len(batch[p]) > 0 && bud == 0 -> leaveVacant(p); m = 0
        };
        break
     :: atomic {                            /* budget -= 1; batch.pop() */
          len(batch[p]) > 0 && bud > 0 ->
          batch[p] ? k, a;
          if :: bud != INF -> bud-- :: else -> skip fi;
          COUNT_WORK
        };
        if
        :: k == W_EVENT -> deliverDraining(p, a)
        :: k == W_REGISTER -> registerDraining(p, a)
        :: k == W_PURGE -> tk = a; purgeDraining(p)
        fi;
        atomic { NF_DEC(k, a); k = 0; a = 0 };
#ifndef OLD_DISPOSE
        if :: purgeRequested[p] -> purgeDraining(p) :: else -> skip fi
#else
        skip
#endif
     :: len(batch[p]) == 0 ->
#ifdef OLD_DISPOSE
        drainer[p] = 0;
#endif
        atomic {                            /* missed = count.wrappingSubtract(missed).newValue */
          wip[p] = wip[p] - m; m = wip[p];
          if :: m == 0 -> holder[p] = 0 :: else -> skip fi
        };
        break
     od;
     if
     :: m == 0 -> break                     /* returned, or left the rights vacant */
     :: else ->
#ifdef OLD_DISPOSE
        drainer[p] = tid
#else
        skip
#endif
     fi
  od
}

/* finishDraining(accounted: 1, budget: bud) */
inline finishDraining(p) {
#ifdef OLD_DISPOSE
  drainer[p] = 0;
#endif
  atomic {                                  /* m = wip.wrappingSubtract(accounted).newValue */
    wip[p] = wip[p] - 1; m = wip[p];
    if :: m == 0 -> holder[p] = 0 :: else -> skip fi
  };
  if
  :: m != 0 ->
#ifdef OLD_DISPOSE
     drainer[p] = tid;
#endif
     drainQueued(p)
  :: else -> skip
  fi
}

/* submitContended(work): push, add; the rights were free: drainQueued(missed: 1, budget: bud) */
inline submitContended(p, wkind, warg) {
  atomic {                                  /* withPending { push(work) } */
    (!(wkind == W_EVENT && ISFLOOD(warg)) || len(pend[p]) < FLOODCAP) ->
    assert(len(pend[p]) < QSIZE);
    pend[p] ! wkind, warg;
    NF_INC(wkind, warg)
  };
  atomic {                                  /* counted(1): count.wrappingAdd(1) */
    old = wip[p] + vacant[p] * 128; wip[p]++;
    if :: old == 0 -> TAKE_RIGHTS(p); m = 1 :: else -> skip fi
  };
  if
  :: old >= 128 ->                          /* the flag was set: claimVacant() */
     atomic { CLAIM(p); if :: cas -> m = 0; old = 0 :: else -> skip fi };
     cas = 0
  :: else -> skip
  fi;
  if
  :: old == 0 ->
#ifdef OLD_DISPOSE
     drainer[p] = tid;
#else
     if :: wkind == W_PURGE -> purgeDraining(p) :: else -> skip fi;
#endif
     old = 0;
     drainQueued(p)
  :: else -> old = 0
  fi
}

/* takeIfIdle(): count.compareExchange(expected: 0, desired: 1) (a vacancy makes the count non-zero) */
#define CAS_WIP(p) if :: wip[p] == 0 && !vacant[p] -> wip[p] = 1; cas = 1; TAKE_RIGHTS(p) :: else -> cas = 0 fi

/* EventProducer.next(event) */
inline next(p, e) {
  atomic {
    SET_LIMIT(LIMIT);
    if
    :: !ISFLOOD(e) ->
       /* ghost: the observers that must receive e, and e's rank among its thread's sends */
       nsent[p]++;
       j = 0;
       do
       :: j < NOBS ->
          if :: OBSPROD(j) == p && observeReturned[j] -> mustGet[e] = mustGet[e] | (1 << j) :: else -> skip fi;
          j++
       :: else -> break
       od;
       j = 0;
       sends[tid]++; sender[e] = tid; sendSeq[e] = sends[tid]
    :: else -> skip
    fi;
    CAS_WIP(p)
  };
  if
  :: cas ->
#ifdef OLD_DISPOSE
     drainer[p] = tid;
#endif
     deliverDraining(p, e);
     finishDraining(p)
  :: else -> submitContended(p, W_EVENT, e)
  fi;
  atomic { cas = 0; END_CALL }
}

/* EventProducer.register(observer) (observe) */
inline observe(p, o) {
  atomic { SET_LIMIT(0); CAS_WIP(p) };
  if
  :: cas ->
#ifdef OLD_DISPOSE
     drainer[p] = tid;
#endif
     registerDraining(p, o);
     finishDraining(p)
  :: else -> submitContended(p, W_REGISTER, o)
  fi;
  atomic { observeReturned[o] = 1; cas = 0; END_CALL }
}

/* Observation.dispose() and EventProducer.observationDisposed() */
inline dispose(p, o) {
  atomic {                                  /* guard !disposed.exchange(true) else return */
    SET_LIMIT(0);
    if
    :: disposed[o] -> cas = 2
    :: else -> disposed[o] = 1; cas = 0; listedAtDispose[o] = inList[o]; dispAt[o] = ndel[p]
    fi
  };
  if
  :: cas == 2 -> skip
  :: else ->
#ifdef OLD_DISPOSE
     atomic { purgesRequested[p]++; ticket = purgesRequested[p] };
#endif
     atomic { CAS_WIP(p) };
     if
     :: cas ->                              /* idle: purge at once, give the rights back */
#ifdef OLD_DISPOSE
        drainer[p] = tid; tk = ticket;
#endif
        purgeDraining(p);
        finishDraining(p)
     :: else ->
#ifdef OLD_DISPOSE
        inside = (drainer[p] == tid);
        submitContended(p, W_PURGE, ticket);
        if
        :: !inside ->
           do                               /* while purgesDone < ticket { yieldThread() } */
           :: purgesDone[p] >= ticket -> break
           :: else -> skip
           od
        :: else -> skip
        fi;
        inside = 0; ticket = 0
#else
        purgeRequested[p] = 1;              /* purgeRequested.store(true) */
        submitContended(p, W_PURGE, 0)
#endif
     fi
  fi;
  atomic { disposeReturned[o] = 1; cas = 0; END_CALL }
}

inline call(kind, arg) {
  if
  :: kind == OP_NEXT -> next(EVPROD(arg), arg)
  :: kind == OP_OBSERVE -> observe(OBSPROD(arg), arg)
  :: kind == OP_DISPOSE -> dispose(OBSPROD(arg), arg)
  fi
}

/* ---------------------------------------------------------------------------- processes ---- */

/* A call made by an observer's closure from inside a delivery, on thread `tid` (its caller waits
 * on `ret`: same thread, real call stack). */
proctype Op(byte tid; byte kind; byte arg; chan ret) {
  CALL_LOCALS;
  call(kind, arg);
  atomic { NF_DEC(0, 0); ret ! 1 }
}

/* A thread: its script of calls. */
proctype Thread(byte tid) {
  CALL_LOCALS;
  byte pc, kind, arg;
  do
  :: atomic { kind = scrK[(tid - 1) * 4 + pc]; arg = scrA[(tid - 1) * 4 + pc]; pc++ };
     if
     :: kind == OP_NONE -> break
     :: else -> call(kind, arg)
     fi
  od;
  atomic { pc = 0; kind = 0; arg = 0; threadsDone++ }
}

/* The worker leaveVacant dispatches (a global queue's thread): drainAsWorker(), that is
 * claimVacant(), and if it got the rights, drain(missed: 0, budget: LIMIT), leaving them vacant
 * again after LIMIT items (a worker sends nothing itself: every item is another thread's). */
proctype Worker(byte p; byte tid) {
  CALL_LOCALS;
end_idle:
  do
  :: atomic {                 /* it starts: workerDispatched.store(false); claimVacant() */
       dispatched[p] -> dispatched[p] = 0; CLAIM(p); if :: cas -> workersBusy++ :: else -> skip fi
     };
     if
     :: cas -> atomic { cas = 0; m = 0; bud = BUDGET(LIMIT); SET_LIM(INF) }; drainQueued(p); atomic { workersBusy--; bud = 0 }
     :: else -> skip
     fi
  od
}

#ifdef FLOOD
/* A thread that sends into FLOODP for ever (the overload the bounded work is for). */
proctype Flood(byte tid) {
  CALL_LOCALS;
  do
  :: next(FLOODP, FLOODEV)
  od
}
#endif

init {
  byte o, e, f, p;
  d_step {   /* the scripts, and the observers registered before the threads start */
    SCRIPT_INIT;
    o = 0;
    do
    :: o < NOBS -> if :: INITIAL(o) -> inList[o] = 1; observeReturned[o] = 1 :: else -> skip fi; o++
    :: else -> break
    od;
    o = 0
  };
  atomic {
    p = 0;
    do
    :: p < NPROD -> run Worker(p, WTID(p)); p++
    :: else -> break
    od;
    p = 0;
    run Thread(1);
    if :: NTHREADS > 1 -> run Thread(2) :: else -> skip fi;
    if :: NTHREADS > 2 -> run Thread(3) :: else -> skip fi;
#ifdef FLOOD
    run Flood(FLOODTID)
#else
    skip
#endif
  };
#ifdef FLOOD
  /* the flood never stops: wait until every other call returned and its work was performed */
  threadsDone == NTHREADS && nfWork == 0;
#else
  threadsDone == NTHREADS && workersBusy == 0;
#endif
  d_step {
    /* property 4 (end state): rights given back, nothing left queued, every event delivered */
    p = 0;
    do
    :: p < NPROD ->
#ifdef FLOOD
       assert(ndel[p] == nsent[p]); p++
#else
       assert(wip[p] == 0 && !vacant[p] && holder[p] == 0 && empty(pend[p]) && empty(batch[p]) && ndel[p] == nsent[p]); p++
#endif
    :: else -> break
    od;
    o = 0;
    do
    :: o < NOBS ->
       if
       :: disposed[o] ->
          assert(disposeReturned[o]);
          assert(released[o] && !inList[o]);          /* the closure was released */
          /* property 1 for a disposed observer: it got every event delivered before its flag */
          assert(!listedAtDispose[o] || lastPos[o] + 1 >= dispAt[o])
       :: else ->
          /* property 1: a live observer got every event after its registration */
          assert(!observeReturned[o] || (inList[o] && lastPos[o] == ndel[OBSPROD(o)]))
       fi;
       e = 1;
       do
       :: e <= NEV ->
          /* property 1: an event sent after observe() returned comes after the registration */
          assert(((mustGet[e] >> o) & 1) == 0 || pos[e] > regPos[o]);
          e++
       :: else -> break
       od;
       o++
    :: else -> break
    od;
    /* property 2: the events of one thread into one producer are delivered in the order sent */
    e = 1;
    do
    :: e <= NEV ->
       f = 1;
       do
       :: f <= NEV ->
          assert(!(sender[e] != 0 && sender[e] == sender[f] && EVPROD(e) == EVPROD(f) &&
                   sendSeq[e] < sendSeq[f]) || pos[e] < pos[f]);
          f++
       :: else -> break
       od;
       e++
    :: else -> break
    od;
    o = 0; e = 0; f = 0; p = 0
  };
  finished = 1
}

/* Property 5: every run ends (every call, dispose() included, returns; in a flood scenario: every
 * call of the other threads returns and its work is performed). Checked with -a -f. */
ltl terminates { <> finished }
