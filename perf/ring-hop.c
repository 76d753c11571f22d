// A model of a hop between two pinned CPUs, with no Bond code (issue 23 item 1, session 11): the
// sender stamps an event every 1 us (200k events) and hands it to a consumer spinning on CPU 1.
//   ring-hop 0: a single-producer ring whose slot holds the stamp and its sequence number in one
//               cache line (the consumer learns of the event and reads it in one transfer);
//   ring-hop 1: the old chain: a flag, then a lock and the queued entry, then the stage's lock and
//               its buffer, each on its own line (dependent misses; an event the consumer missed
//               while behind is dropped, so this mode's p99 is flattered).
// Prints p50 and p99 of the 150k events after a 50k warm-up. Compare the two in the same minute,
// with perf/core-to-core.c's round trip to tell the host's slow windows (~600 ns) from fast ones.
//
//   clang -O2 -pthread -o /tmp/ring-hop perf/ring-hop.c && /tmp/ring-hop 0 && /tmp/ring-hop 1
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static uint64_t ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec; }
static void pin(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
enum { N = 200000, RING = 1024 };
typedef struct { _Atomic uint64_t seq; uint64_t stamp; char pad[48]; } Slot;
static Slot ring[RING] __attribute__((aligned(64)));
static int64_t lat[N];
static int mode; static int got = N;
// chain model: flag line, lock line, queue line (entry), buffer line, each its own line
static struct { _Atomic int v; char pad[60]; } flag __attribute__((aligned(64))), lock_ __attribute__((aligned(64))), slock __attribute__((aligned(64)));
static uint64_t queue_entry[8] __attribute__((aligned(64)));
static uint64_t buffer[RING * 8] __attribute__((aligned(64)));
static _Atomic uint64_t produced __attribute__((aligned(64)));
static void *consumer(void *a) {
  pin(1);
  if (mode == 0) {
    for (int i = 0; i < N; i++) {
      Slot *s = &ring[i % RING];
      uint64_t seq;
      while ((seq = atomic_load_explicit(&s->seq, memory_order_acquire)) < (uint64_t)i + 1) {
        if (atomic_load_explicit(&produced, memory_order_relaxed)) { got = i; return 0; }
      }
      // Lapped (the consumer was off its core for more than RING events): the slot holds a later
      // event; its latency is recorded as the time since this event's slot was due, approximately.
      lat[i] = ns() - s->stamp;
    }
  } else {
    for (int i = 0; i < N; i++) {
      while (!atomic_load_explicit(&flag.v, memory_order_acquire)) { if (atomic_load_explicit(&produced, memory_order_relaxed)) { got = i; return 0; } }
      int e = 0; while (!atomic_compare_exchange_weak(&lock_.v, &e, 1)) e = 0;
      atomic_store_explicit(&flag.v, 0, memory_order_relaxed);
      uint64_t idx = queue_entry[0];
      atomic_store_explicit(&lock_.v, 0, memory_order_release);
      e = 0; while (!atomic_compare_exchange_weak(&slock.v, &e, 1)) e = 0;
      uint64_t st = buffer[idx * 8];
      atomic_store_explicit(&slock.v, 0, memory_order_release);
      lat[i] = ns() - st;
    }
  }
  return 0;
}
static int cmp(const void *a, const void *b) { int64_t x = *(int64_t *)a, y = *(int64_t *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  mode = atoi(argv[1]);
  pthread_t t; pthread_create(&t, 0, consumer, 0);
  pin(0);
  uint64_t start = ns() + 1000000;
  for (int i = 0; i < N; i++) {
    while (ns() < start + (uint64_t)i * 1000) {}
    uint64_t st = ns();
    if (mode == 0) {
      Slot *s = &ring[i % RING];
      s->stamp = st;
      atomic_store_explicit(&s->seq, (uint64_t)i + 1, memory_order_release);
    } else {
      int e = 0; while (!atomic_compare_exchange_weak(&slock.v, &e, 1)) e = 0;
      buffer[(i % RING) * 8] = st;
      atomic_store_explicit(&slock.v, 0, memory_order_release);
      e = 0; while (!atomic_compare_exchange_weak(&lock_.v, &e, 1)) e = 0;
      queue_entry[0] = i % RING;
      atomic_store_explicit(&flag.v, 1, memory_order_release);
      atomic_store_explicit(&lock_.v, 0, memory_order_release);
    }
  }
  atomic_store(&produced, 1);
  pthread_join(t, 0);
  if (got < N) fprintf(stderr, "chain: %d of %d seen\n", got, N);
  int n = got - 50000; qsort(lat + 50000, n, sizeof lat[0], cmp);
  printf("%s p50 %lld ns p99 %lld ns\n", mode ? "chain" : "ring ", (long long)lat[50000 + n / 2], (long long)lat[50000 + n * 99 / 100]);
  return 0;
}
