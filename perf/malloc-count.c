// Counts a process's allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc,
// memalign) and prints the total to stderr at exit, for executables outside package-benchmark's
// malloc counters (BondLatency). Run a binary with N and 2N events and divide the difference by N:
//
//   clang -O2 -shared -fPIC -o /tmp/malloc-count.so perf/malloc-count.c
//   LD_PRELOAD=/tmp/malloc-count.so Benchmarks/.build/release/BondLatency --events 200000 --only busySpin
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static atomic_long count;
void *malloc(size_t n) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
  atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
  void *p = __libc_memalign(a, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
__attribute__((destructor)) static void report(void) {
  char line[64];
  int len = snprintf(line, sizeof line, "mallocs: %ld\n", atomic_load(&count));
  fwrite(line, 1, len, stderr);
}
