/* The application behind mod_wirehook in the integration suites: records
 * what it was handed so a suite can compare it byte for byte. One
 * directory per call under $WH_APP_OUT/calls (default /tmp/calls): body
 * (stdin exactly), env (the environment, a NAME=VALUE line each, as env(1)
 * prints it), marker (method and URI). Answers 200 with a small JSON
 * document, or the status named by $WH_APP_STATUS when the suite sets one
 * (SetEnv), after $WH_APP_SLEEP seconds when one is set. With
 * $WH_APP_LINGER it answers 200 at once and runs on that many seconds,
 * its output still open: the client has read the answer while the
 * handler still runs.
 *
 * A program rather than a shell script: it runs for every delivery of
 * every suite, and the script's helpers (mkdir, cat, env, wc) were four
 * processes a call. Built into $(BUILD)/test-bin by make check. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v ? v : dflt;
}

static int set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

/* seconds as sleep(1) takes them here: a decimal number */
static void pause_for(const char *seconds)
{
    double s = strtod(seconds, NULL);
    struct timespec ts;

    if (!(s > 0))
        return;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static FILE *open_new(const char *dir, const char *name)
{
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
        return NULL;
    return fopen(path, "we");
}

/* the call's directory: call.PID, or a fresh name when that pid was seen
 * before in this run */
static int make_call_dir(char *d, size_t size)
{
    const char *base = env_or("WH_APP_OUT", "/tmp");
    char out[4000];

    if (snprintf(out, sizeof(out), "%s/calls", base) >= (int)sizeof(out))
        return -1;
    if (mkdir(base, 0755) != 0 && errno != EEXIST)
        return -1;
    if (mkdir(out, 0755) != 0 && errno != EEXIST)
        return -1;
    if (snprintf(d, size, "%s/call.%ld", out, (long)getpid()) >= (int)size)
        return -1;
    if (mkdir(d, 0755) == 0)
        return 0;
    if (snprintf(d, size, "%s/call.XXXXXXXX", out) >= (int)size || !mkdtemp(d))
        return -1;
    return chmod(d, 0755);
}

static long copy_body(FILE *to)
{
    char buf[65536];
    long total = 0;
    size_t r;

    while ((r = fread(buf, 1, sizeof(buf), stdin)) > 0) {
        if (fwrite(buf, 1, r, to) != r)
            return -1;
        total += (long)r;
    }
    return ferror(stdin) ? -1 : total;
}

static int record(const char *d, long *bytes)
{
    FILE *f;
    char **e;

    if (!(f = open_new(d, "body")))
        return -1;
    *bytes = copy_body(f);
    if (fclose(f) != 0 || *bytes < 0)
        return -1;
    if (!(f = open_new(d, "env")))
        return -1;
    for (e = environ; *e; e++)
        fprintf(f, "%s\n", *e);
    if (fclose(f) != 0)
        return -1;
    if (!(f = open_new(d, "marker")))
        return -1;
    fprintf(f, "%s %s\n", env_or("REQUEST_METHOD", ""), env_or("REQUEST_URI", ""));
    return fclose(f);
}

int main(void)
{
    char d[4096];
    long n = 0;

    umask(022);
    if (make_call_dir(d, sizeof(d)) != 0 || record(d, &n) != 0)
        return 1;
    if (set("WH_APP_LINGER")) {
        printf("Content-Type: application/json\r\n\r\n{\"app\":\"received\",\"bytes\":%ld}\n", n);
        fflush(stdout);
        pause_for(getenv("WH_APP_LINGER"));
        return 0;
    }
    if (set("WH_APP_SLEEP"))
        pause_for(getenv("WH_APP_SLEEP"));
    if (set("WH_APP_STATUS"))
        printf("Status: %s\r\nContent-Type: application/json\r\n\r\n{\"app\":\"failing\",\"bytes\":%ld}\n",
               getenv("WH_APP_STATUS"), n);
    else
        printf("Content-Type: application/json\r\n\r\n{\"app\":\"received\",\"bytes\":%ld}\n", n);
    return 0;
}
