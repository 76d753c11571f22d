/*
 * Drain.pml: a Promela model of Bond's delivery rights (`wip`), the pending queue, the drainer's
 * loop and disposal, checked with spin by Verification/check-model (see Verification/README.md).
 *
 * SOURCE MAP. Line numbers of main at 60e815c (new protocol, issue 9) in Sources/Bond/Core/:
 *   model step                         Swift (file:function, lines)
 *   next(p, e)                         EventProducer.swift:next 148-156
 *     CAS_WIP fast path                  150 wip.compareExchange(0, 1); 151 deliverDraining; 152 finishDraining(1)
 *     else submitContended(W_EVENT)      154
 *   observe(p, o)                      EventProducer+Drain.swift:register 51-64
 *     CAS_WIP fast path                  57 compareExchange; 58 registerDraining(box); 59 finishDraining(1)
 *     else submitContended(W_REGISTER)   61
 *   submitContended(p, kind, arg)      EventProducer+Drain.swift:submitContended 68-74
 *     push under the lock                69 pending.withLock { push }
 *     old = wip++ ; old == 0 -> drain    70 wip.wrappingAdd(1).oldValue == 0; 71 performPendingDraining; 72 finishDraining(1)
 *   finishDraining(p)                  EventProducer+Drain.swift:finishDraining 78-85
 *     wip -= m; m = wip                  81 wip.wrappingSubtract(missed).newValue; 82 == 0 return; 83 performPendingDraining
 *   performPending(p)                  EventProducer+Drain.swift:performPendingDraining 89-100
 *     swap under the lock                90 pending.withLock { swap(&$0.queue, &batch) }
 *     batch ? k, a ; perform             91-96 while let work = batch.pop() { switch work ... }
 *     purgeRequested -> purgeDraining    98 if purgeRequested.load() { purgeDraining() }
 *   deliverDraining(p, e), DELIVER     EventProducer+Drain.swift:deliverDraining 104-114
 *     replay append                      105; flag load then call: 111 if !disposed.load() { handler(event) }
 *   registerDraining(p, o)             EventProducer+Drain.swift:registerDraining 118-132
 *     replay (flag checked)              120-123; 128 guard !disposed.load(); 129-131 append to observers
 *   purgeDraining(p)                   EventProducer+Drain.swift:purgeDraining 148-170
 *     purgeRequested = 0                 152 purgeRequested.exchange(false); 161-168 flag load, release or keep
 *   dispose(p, o)                      Observation.swift:dispose 25-29 (27 disposed.exchange(true)), then
 *                                      EventProducer+Drain.swift:observationDisposed 175-187
 *     CAS_WIP -> purge, finish           178 compareExchange; 179 purgeDraining; 180 finishDraining(1)
 *     else request + queue               183 purgeRequested.store(true); 184 submitContended(.purge)
 *   OLD_DISPOSE (main at 820a1cc, before issue 9), EventProducer+Drain.swift:
 *     drainer[p] = tid / = 0             45, 59, 74 drainer.store(currentThreadID()); 71 drainer.store(0)
 *     ticket, purgesDone                 168 purgesRequested.add(1); 158-160 purgesDone.store(ticket)
 *     inside = (drainer == tid)          174; 175 submitContended(.purge(ticket))
 *     spin-wait                          176-180 if !insideDelivery { while purgesDone < ticket { yieldThread() } }
 * Not modelled: liveObservers/observerCount (a counter decremented before dispose() returns), the
 * `registered` callback (it runs where the replay ends), the managed lifecycle, deinit, Observable's
 * `latest`, batch updates. The drainer visits observers in index order (the Swift code: in
 * registration order); both are one fixed order per delivery.
 *
 * Threads are processes `Thread(tid)`. A call (`next`, `observe`, `dispose`) is a process `Op` run
 * by its thread, which waits for it to return: a call made by an observer's closure from inside a
 * delivery is a nested `Op` with the same `tid`, so the model has a real call stack on each thread
 * (reentrant `next`, `dispose` from inside a delivery of this producer or of another one).
 *
 * Atomicity: each `atomic`/`d_step` block is one atomic instruction of the Swift code (a
 * compare-exchange, an add, a subtract, an exchange, a load, a store) or one critical section of
 * the `pending` lock (push; swap of the whole queue). Everything else is a separate step, so spin
 * explores every interleaving between them. The model is sequentially consistent (every atomic
 * of the Swift code on these paths is acquiring-and-releasing or pairs release/acquire).
 *
 * Build switches:
 *   -DSCENARIO=n   which threads, observers and observer actions (see the table at the end)
 *   -DOLD_DISPOSE  today's (main before issue 9) dispose: after queueing the purge, a thread that is
 *                  not this producer's drainer spins (sched_yield) until the purge was executed.
 */

#ifndef SCENARIO
#define SCENARIO 1
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
/* Cross-dispose, the shape that deadlocks today: producers P (0) and Q (1). o0 observes P and
 * disposes o3 (an observation of Q); o2 observes Q and disposes o1 (an observation of P).
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

#else
#error "unknown SCENARIO"
#endif

#define QSIZE 6   /* the pending queue holds at most this many work items (never reached) */

/* ------------------------------------------------------------------ the producers' state ---- */
byte wip[NPROD];                               /* EventProducer.wip */
chan pend[NPROD] = [QSIZE] of { byte, byte };  /* EventProducer.pending.queue: (kind, arg) */
chan batch[NPROD] = [QSIZE] of { byte, byte }; /* EventProducer.batch (drainer-owned) */
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
byte ndel[NPROD];             /* events p has delivered (the position of the latest) */
byte nsent[NPROD];            /* events sent into p */
byte pos[NEV + 1];            /* position of event e in its producer's delivery order; 0: none */
byte mustGet[NEV + 1];        /* observers (bit mask) whose observe() returned before next(e) */
byte sender[NEV + 1];         /* thread that sent e */
byte sendSeq[NEV + 1];        /* e's rank among the sends of its thread */
byte sends[NTHREADS + 1];
byte threadsDone;
bool finished;
hidden byte scrK[12];         /* the threads' scripts (constant, set by init) */
hidden byte scrA[12];
#define S(t, n, k, a) scrK[(t - 1) * 4 + n] = k; scrA[(t - 1) * 4 + n] = a

/* --------------------------------------------------------------- the producer's protocol ---- */
/* Each inline runs in a process (a thread's call) with the locals declared in CALL_LOCALS. */
#define CALL_LOCALS chan r = [1] of { bit }; bit d; byte i, j, k, a, m, old, tk, ticket, cas; bit ok, inside

/* The delivery rights change hands only through wip (ghost check of mutual exclusion). */
#define TAKE_RIGHTS(p) assert(holder[p] == 0); holder[p] = tid
#define HOLDS(p) assert(holder[p] == tid)

/* The closure of o (its first delivery) makes its calls on this thread, from inside the delivery. */
inline observerCalls(o) {
  acted[o] = 1;
  if :: ACT1(o) != OP_NONE -> run Op(tid, ACT1(o), ARG1(o), r); r ? d :: else -> skip fi;
  if :: ACT2(o) != OP_NONE -> run Op(tid, ACT2(o), ARG2(o), r); r ? d :: else -> skip fi
}

/* One delivery of event e to o: `if !disposed.load() { handler(e) }`. The delivery starts at the
 * flag load. A closure that makes no call is one step; one that calls leaves ok == 1 and
 * inDelivery[o] set until its calls return. */
#define DELIVER(o, e)                                                                     \
  if                                                                                       \
  :: !disposed[o] ->                                                                       \
     assert(!disposeReturned[o]);  /* property 3: no delivery starts after dispose() */    \
     assert(!released[o]);         /* the closure is alive */                              \
     assert(pos[e] == lastPos[o] + 1); /* properties 1, 2: the single order, no gap */      \
     lastPos[o] = pos[e];                                                                  \
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
    ndel[p]++; pos[e] = ndel[p];
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

/* performPendingDraining(): swap the whole queue out under the lock, perform the items in order,
 * and (new protocol) purge at once between items when a dispose() asked for it. */
inline performPending(p) {
  atomic {                                   /* pending.withLock { swap(&$0.queue, &batch) } */
    HOLDS(p);
    do
    :: pend[p] ? k, a -> batch[p] ! k, a
    :: empty(pend[p]) -> break
    od
  };
  do
  :: batch[p] ? k, a ->                      /* batch.pop() */
     if
     :: k == W_EVENT -> deliverDraining(p, a)
     :: k == W_REGISTER -> registerDraining(p, a)
     :: k == W_PURGE -> tk = a; purgeDraining(p)
     fi;
     k = 0; a = 0;
#ifndef OLD_DISPOSE
     if :: purgeRequested[p] -> purgeDraining(p) :: else -> skip fi
#else
     skip
#endif
  :: empty(batch[p]) -> break
  od
}

/* finishDraining(accounted: 1) */
inline finishDraining(p) {
  m = 1;
  do
  :: true ->
#ifdef OLD_DISPOSE
     drainer[p] = 0;
#endif
     atomic {                                /* missed = wip.wrappingSubtract(missed).newValue */
       wip[p] = wip[p] - m; m = wip[p];
       if :: m == 0 -> holder[p] = 0 :: else -> skip fi
     };
     if
     :: m == 0 -> break
     :: else ->
#ifdef OLD_DISPOSE
        drainer[p] = tid;
#endif
        performPending(p)
     fi
  od
}

/* submitContended(work) */
inline submitContended(p, kind, arg) {
  atomic { pend[p] ! kind, arg };           /* pending.withLock { push(work) } */
  atomic {                                  /* wip.wrappingAdd(1).oldValue == 0 */
    old = wip[p]; wip[p]++;
    if :: old == 0 -> TAKE_RIGHTS(p) :: else -> skip fi
  };
  if
  :: old == 0 ->
#ifdef OLD_DISPOSE
     drainer[p] = tid;
#endif
     old = 0;
     performPending(p);
     finishDraining(p)
  :: else -> old = 0
  fi
}

/* wip.compareExchange(expected: 0, desired: 1) */
#define CAS_WIP(p) if :: wip[p] == 0 -> wip[p] = 1; cas = 1; TAKE_RIGHTS(p) :: else -> cas = 0 fi

/* EventProducer.next(event) */
inline next(p, e) {
  atomic {
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
    sends[tid]++; sender[e] = tid; sendSeq[e] = sends[tid];
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
  cas = 0
}

/* EventProducer.register(observer) (observe) */
inline observe(p, o) {
  atomic { CAS_WIP(p) };
  if
  :: cas ->
#ifdef OLD_DISPOSE
     drainer[p] = tid;
#endif
     registerDraining(p, o);
     finishDraining(p)
  :: else -> submitContended(p, W_REGISTER, o)
  fi;
  observeReturned[o] = 1; cas = 0
}

/* Observation.dispose() and EventProducer.observationDisposed() */
inline dispose(p, o) {
  atomic {                                  /* guard !disposed.exchange(true) else return */
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
  disposeReturned[o] = 1; cas = 0
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
  ret ! 1
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
    run Thread(1);
    run Thread(2);
    if :: NTHREADS > 2 -> run Thread(3) :: else -> skip fi
  };
  threadsDone == NTHREADS;
  d_step {
    /* property 4 (end state): rights given back, nothing left queued, every event delivered */
    p = 0;
    do
    :: p < NPROD ->
       assert(wip[p] == 0 && holder[p] == 0 && empty(pend[p]) && empty(batch[p]) && ndel[p] == nsent[p]); p++
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

/* Property 5: every run ends (every call, dispose() included, returns). Checked with -a -f. */
ltl terminates { <> finished }
