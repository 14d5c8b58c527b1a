#include "bench_util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void bench_die(const char *msg, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", program_invocation_short_name, msg,
            detail ? ": " : "", detail ? detail : "");
    exit(1);
}

char *bench_slurp(apr_pool_t *p, const char *path, apr_size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f)
        bench_die("cannot open", path);
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        bench_die("cannot size", path);
    buf = apr_palloc(p, (apr_size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        bench_die("cannot read", path);
    fclose(f);
    buf[n] = '\0';
    *len = (apr_size_t)n;
    return buf;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
