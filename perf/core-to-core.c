// The raw cost of moving a cache line between the two CPUs that `BondLatency --pin` uses: a
// ping-pong of one atomic between a thread on CPU 0 and one on CPU 1, 100,000 round trips; prints
// the median round trip (CPU 0's clock) and the median apparent one-way time (CPU 1's clock minus
// CPU 0's: about half the round trip when the two clocks agree). No Bond code: it tells a slow
// placement of the VM's two vCPUs (round trip ~600 ns here) from a fast one (~150 ns).
//
//   clang -O2 -pthread -o /tmp/core-to-core perf/core-to-core.c && /tmp/core-to-core
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static uint64_t ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec; }
static _Atomic uint64_t ping, pong;
static uint64_t seen[100000];
enum { N = 100000 };
static void pin(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
static void *echo(void *arg) {
  pin(1);
  for (int i = 0; i < N; i++) {
    uint64_t v;
    while ((v = atomic_load_explicit(&ping, memory_order_acquire)) == 0) {}
    seen[i] = ns();
    atomic_store_explicit(&ping, 0, memory_order_relaxed);
    atomic_store_explicit(&pong, v, memory_order_release);
  }
  return 0;
}
static int cmp(const void *a, const void *b) { int64_t x = *(int64_t *)a, y = *(int64_t *)b; return x < y ? -1 : x > y; }
int main(void) {
  static int64_t rtt[N], oneway[N];
  pthread_t t; pthread_create(&t, 0, echo, 0);
  pin(0);
  for (int i = 0; i < N; i++) {
    uint64_t start = ns();
    atomic_store_explicit(&ping, start, memory_order_release);
    while (atomic_load_explicit(&pong, memory_order_acquire) != start) {}
    uint64_t end = ns();
    rtt[i] = end - start;
    oneway[i] = (int64_t)seen[i] - (int64_t)start;  // read after the pong: seen[i] is published
    atomic_store_explicit(&pong, 0, memory_order_relaxed);
  }
  pthread_join(t, 0);
  qsort(rtt, N, sizeof rtt[0], cmp); qsort(oneway, N, sizeof oneway[0], cmp);
  printf("round trip p50 %lld ns; apparent one-way p50 %lld ns (offset vs rtt/2: %lld ns)\n",
         (long long)rtt[N / 2], (long long)oneway[N / 2], (long long)(oneway[N / 2] - rtt[N / 2] / 2));
  return 0;
}
