#ifndef WH_BENCH_UTIL_H
#define WH_BENCH_UTIL_H
/* Plumbing shared by the bench programs (bench_core, bench_inbox,
 * bench_gen): they are tools, so failing loudly and at once is right. */
#include <apr_pools.h>

/* Prints "<program>: msg[: detail]" to stderr and exits 1. */
__attribute__((noreturn)) void bench_die(const char *msg, const char *detail);
/* A whole file into p, NUL-terminated; dies when it cannot. */
char *bench_slurp(apr_pool_t *p, const char *path, apr_size_t *len);
/* Monotonic clock in seconds. */
double bench_now(void);

#endif
