/* wirehook forward --config FILE: pushes every event the inbox stores to
 * the application at ForwardUrl, with retries, dead letters and
 * per-payment ordering (docs/forwarding.md).
 *
 * One thread: libcurl's multi interface carries up to ForwardConcurrency
 * requests while the loop here turns their answers into outcomes and
 * writes them, together with the next leases, in one transaction per
 * cycle (wh_fq_cycle). An event is marked forwarded only after its 2xx
 * arrived; a forwarder killed at any moment leaves at most its in-flight
 * events to be forwarded again once their leases run out. */
#include "commands.h"
#include "cli_util.h"
#include "forward_http.h"
#include "config/wh_config_load.h"
#include "verify/wh_config_lint.h"
#include "forward/wh_forward_queue.h"
#include "forward/wh_forward.h"
#include "forward/wh_forward_purge.h"
#include "verify/wh_duration.h"
#include "inbox/wh_inbox.h"
#include "inbox/wh_inbox_purge.h"

#include <apr_general.h>
#include <apr_strings.h>
#include <curl/curl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FORWARD_USAGE                                                          \
    "forward --config F [--drain] [--interval S] [--purge-interval S] [--verbose]\n" \
    "       [--quiet]"

/* How often an idle forwarder looks for newly stored events: the most a
 * new event waits before its first attempt starts. */
#define FWD_IDLE_POLL_MS 100
/* Outcomes are written at the latest this long after the first of them
 * arrived (sooner when half the slots are waiting for them). */
#define FWD_FLUSH_MS 50
/* After a database failure, the next try comes this much later. */
#define FWD_DB_RETRY_MS 1000
/* How long a stopping forwarder keeps trying to write its last outcomes. */
#define FWD_STOP_WRITE_TRIES 10
/* --drain gives up (exit 1) when the database has been failing this long:
 * a test or a benchmark must not wait for ever. */
#define FWD_DRAIN_DB_GIVEUP_S 60
#define FWD_NID_MAX 64
/* The first purge comes this long after the start (the start itself
 * stays quick), the next ones every --purge-interval; a purge that met a
 * failing database is tried again this much later. */
#define FWD_PURGE_FIRST_MS 1000
#define FWD_PURGE_RETRY_MS 60000

static volatile sig_atomic_t stop_signals;

static void on_signal(int sig)
{
    (void)sig;
    stop_signals++;
    if (stop_signals > 1)
        _exit(1);     /* a second signal: leave now, leases run out */
}

/* One in-flight attempt: what its outcome needs. */
typedef struct {
    int used;
    apr_int64_t event_id;
    int attempt;
    apr_time_t first_at;
    char nid[FWD_NID_MAX + 1];
} slot;

typedef struct {
    apr_pool_t *p;
    const wh_config *cfg;
    wh_inbox *ib;
    wh_fq *fq;
    wh_fwd_http *http;
    wh_fwd_secret *secret;       /* ForwardSecretFile, re-read on change */
    slot *slots;
    int nslots;
    int verbose;
    apr_uint64_t rng;

    apr_pool_t *opool;           /* pending outcomes; cleared once written */
    apr_array_header_t *outcomes;
    apr_time_t first_outcome;    /* when the oldest pending one arrived */

    /* for the status line */
    apr_int64_t forwarded, forwarded_total, retried, died, lost;
    apr_time_t interval_start;

    /* retention: a purge in steps between the cycles */
    apr_int64_t purge_every_ms;  /* 0: never */
    const wh_purge_guard *guard;
    apr_pool_t *purge_pool;      /* the purge under way */
    wh_purge *purge;             /* NULL: none under way */
    apr_time_t next_purge;       /* the next purge, or the next step */
} fwd;

static void logline(const char *level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void logline(const char *level, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;

    va_start(ap, fmt);
    apr_vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    fprintf(stderr, "wirehook forward: %s: %s\n", level, buf);
}

/* The inbox's messages. A database that is down fails every cycle with
 * the same message: it is logged once a minute, with how often it came. */
#define FWD_LOG_REPEAT_S 60

static void inbox_log(void *baton, wh_log_level level, const char *msg)
{
    static const char *const names[] = { "error", "warn", "info", "debug" };
    static char last[512];
    static apr_time_t last_at;
    static long repeats;
    apr_time_t now = apr_time_now();
    (void)baton;

    if (level > WH_LOG_INFO)
        return;
    if (strncmp(last, msg, sizeof(last) - 1) == 0 &&
        now - last_at < apr_time_from_sec(FWD_LOG_REPEAT_S)) {
        repeats++;
        return;
    }
    if (repeats)
        logline("info", "(the message before came %ld more time%s)", repeats,
                repeats == 1 ? "" : "s");
    repeats = 0;
    apr_cpystrn(last, msg, sizeof(last));
    last_at = now;
    logline(names[level], "%s", msg);
}

static apr_uint64_t next_random(fwd *f)
{
    /* xorshift64*: jitter only needs spread, not secrecy */
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    return f->rng * APR_UINT64_C(2685821657736338717);
}

/* Control characters never reach the log (an answer is the
 * application's text). */
static const char *printable(apr_pool_t *p, const char *s, apr_size_t n)
{
    char *o = apr_pstrmemdup(p, s, n);
    for (char *c = o; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f)
            *c = ' ';
    return o;
}

static const char *answer_text(apr_pool_t *p, const wh_fwd_result *r)
{
    if (!r->answered)
        return apr_pstrcat(p, "no answer: ", r->error ? r->error : "?", NULL);
    return apr_psprintf(p, "HTTP %ld%s%s", r->status, r->body_len ? ": " : "",
                        printable(p, r->body, r->body_len));
}

static void on_done(void *ctx, const wh_fwd_result *r)
{
    fwd *f = ctx;
    slot *s = r->baton;
    wh_fq_outcome *o;
    wh_fwd_class c = wh_forward_classify(r->answered, r->status);
    apr_time_t now = apr_time_now();

    if (!f->outcomes->nelts)
        f->first_outcome = now;
    o = apr_array_push(f->outcomes);
    memset(o, 0, sizeof(*o));
    o->event_id = s->event_id;
    o->attempt = s->attempt;
    o->http_status = r->answered ? (int)r->status : 0;
    o->answer = answer_text(f->opool, r);
    o->duration_ms = r->elapsed_ms > 0 ? r->elapsed_ms : 0;
    o->started_at = now - apr_time_from_msec(o->duration_ms);
    if (c == WH_FWD_FORWARDED) {
        o->state = WH_FQ_FORWARDED;
        f->forwarded++;
        f->forwarded_total++;
        if (f->verbose > 1)
            logline("info", "forwarded %s (attempt %d, HTTP %ld, %" APR_INT64_T_FMT " ms)",
                    s->nid, s->attempt, r->status, r->elapsed_ms);
    } else {
        wh_fwd_plan pl;
        wh_forward_plan(f->opool, f->cfg, c, s->attempt, s->first_at, now,
                        r->retry_after_ms, next_random(f), &pl);
        if (pl.dead) {
            o->state = WH_FQ_DEAD;
            o->reason = pl.reason;
            f->died++;
            logline("warn", "dead letter: notificationId %s after attempt %d: %s (%s)",
                    s->nid, s->attempt, o->answer, pl.reason);
        } else {
            o->state = WH_FQ_READY;
            o->next_at = pl.next_at;
            f->retried++;
            if (f->verbose)
                logline("info", "retry: notificationId %s attempt %d: %s; next in %"
                        APR_INT64_T_FMT " ms%s", s->nid, s->attempt, o->answer,
                        apr_time_as_msec(pl.next_at - now),
                        r->retry_after_ms >= 0 ? " (Retry-After)" : "");
        }
    }
    s->used = 0;
}

static slot *free_slot(fwd *f)
{
    for (int i = 0; i < f->nslots; i++)
        if (!f->slots[i].used)
            return &f->slots[i];
    return NULL;
}

static void start_leases(fwd *f, const apr_array_header_t *leases)
{
    for (int i = 0; i < leases->nelts; i++) {
        const wh_fq_lease *c = &APR_ARRAY_IDX(leases, i, wh_fq_lease);
        slot *s = free_slot(f);
        if (!s)
            break;   /* cannot happen: leases never exceed the free slots */
        s->used = 1;
        s->event_id = c->ev.id;
        s->attempt = c->ev.attempt;
        s->first_at = c->first_at;
        apr_cpystrn(s->nid, c->ev.notification_id ? c->ev.notification_id : "-",
                    sizeof(s->nid));
        if (wh_fwd_http_start(f->http, &c->ev, s) != 0) {
            /* The request could not even be built: an attempt that failed. */
            wh_fwd_result r;
            memset(&r, 0, sizeof(r));
            r.baton = s;
            r.error = "the request could not be built";
            r.retry_after_ms = -1;
            on_done(f, &r);
        }
    }
}

static void status_line(fwd *f, apr_pool_t *p, apr_time_t now)
{
    wh_fq_counts st;
    double secs = (double)(now - f->interval_start) / APR_USEC_PER_SEC;
    const char *lag = "0s";
    apr_time_exp_t tm;
    char when[32];
    apr_size_t n;

    if (wh_fq_stats(f->fq, p, &st) != 0) {
        printf("status unavailable: the inbox database did not answer\n");
        fflush(stdout);
        return;
    }
    if (st.oldest)
        lag = apr_psprintf(p, "%.1fs", (double)(now - st.oldest) / APR_USEC_PER_SEC);
    apr_time_exp_gmt(&tm, now);
    apr_strftime(when, &n, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* the documented status line: scripts read "delivered=", which counts
     * events forwarded (docs/forwarding.md) */
    printf("%s delivered=%" APR_INT64_T_FMT " rate=%.1f/s retrying=%" APR_INT64_T_FMT
           " dead=%" APR_INT64_T_FMT " lag=%s inflight=%d queued=%" APR_INT64_T_FMT
           " unqueued=%" APR_INT64_T_FMT "\n", when, f->forwarded,
           secs > 0 ? (double)f->forwarded / secs : 0.0, st.retrying, st.dead, lag,
           wh_fwd_http_inflight(f->http), st.waiting + st.ready, st.unqueued);
    fflush(stdout);
    f->forwarded = 0;
    f->interval_start = now;
}

/* Writes the pending outcomes and leases up to lease_max events: one
 * transaction. On failure everything stays pending for the next try. */
static int cycle(fwd *f, apr_pool_t *cp, int lease_max, wh_fq_cycle_result *out)
{
    apr_time_t now = apr_time_now();

    if (wh_fq_cycle(f->fq, cp, f->outcomes, lease_max,
                    wh_forward_lease_ms(f->cfg), now, out) != 0)
        return -1;
    if (out->lost) {
        f->lost += out->lost;
        logline("warn", "%d outcome(s) not recorded: their lease had run out and "
                "another forwarder took the event", out->lost);
    }
    apr_array_clear(f->outcomes);
    apr_pool_clear(f->opool);
    f->outcomes = apr_array_make(f->opool, 64, sizeof(wh_fq_outcome));
    if (out->leases->nelts) {
        const char *note = NULL;
        int failed = 0;
        const wh_secret *sec = wh_fwd_secret_now(f->secret, now, cp, &note, &failed);
        if (note)
            logline(failed ? "warn" : "info", "%s", note);
        wh_fwd_http_set_secret(f->http, sec);
    }
    start_leases(f, out->leases);
    return 0;
}

/* One transaction of the purge when one is due: a purge runs beside the
 * forwarding, a step at a time, each step followed by a pause as long as
 * it took, so stores and cycles wait at most one step. */
static void purge_step(fwd *f, apr_pool_t *cp, apr_time_t now)
{
    apr_time_t t0;
    int rv;

    if (!f->purge_every_ms || now < f->next_purge)
        return;
    if (!f->purge) {
        wh_purge_opts o;
        memset(&o, 0, sizeof(o));
        o.now = now;
        o.guard = f->guard;
        apr_pool_clear(f->purge_pool);
        f->purge = wh_purge_begin(f->purge_pool, f->ib, f->cfg, &o);
    }
    t0 = apr_time_now();
    apr_pool_clear(cp);
    rv = wh_purge_step(f->purge, cp);
    if (rv > 0) {
        apr_time_t took = apr_time_now() - t0;
        f->next_purge = apr_time_now() + (took < 1000 ? 1000 : took > 50000 ? 50000 : took);
        return;
    }
    if (rv == 0) {
        const wh_purge_counts *n = wh_purge_result(f->purge);
        if (n->events || n->quarantine || n->auth_cache)
            logline("info", "purged: events=%" APR_INT64_T_FMT " (dead letters %"
                    APR_INT64_T_FMT ") quarantine=%" APR_INT64_T_FMT " auth-cache=%"
                    APR_INT64_T_FMT "; kept for forwarding: %" APR_INT64_T_FMT,
                    n->events, n->dead_letters, n->quarantine, n->auth_cache, n->kept);
        f->next_purge = now + apr_time_from_msec(f->purge_every_ms);
    } else {
        /* the inbox logged why; this purge is given up, the next comes */
        f->next_purge = now + apr_time_from_msec(FWD_PURGE_RETRY_MS < f->purge_every_ms
                                                 ? FWD_PURGE_RETRY_MS : f->purge_every_ms);
    }
    f->purge = NULL;
}

static int run(fwd *f, int drain, apr_int64_t interval_ms)
{
    apr_pool_t *cp;
    apr_time_t next_due = 0, next_peek = 0, db_retry_at = 0, db_down_since = 0;
    apr_time_t next_status = apr_time_now() + apr_time_from_msec(interval_ms);
    apr_time_t started = apr_time_now();
    int more = 1, new_events = 1, stop_tries = 0, db_down = 0;
    const int conc = f->nslots;

    apr_time_t next_alive = 0;

    apr_pool_create(&cp, f->p);
    for (;;) {
        apr_time_t now = apr_time_now();
        /* a sign of life for the console, work or none; a failure only
         * delays it (the cycle logs the database's state) */
        if (now >= next_alive && !stop_signals) {
            apr_pool_clear(cp);
            (void)wh_fq_alive(f->fq, cp, started, now, 0);
            next_alive = now + WH_FQ_ALIVE_EVERY;
        }
        int inflight = wh_fwd_http_inflight(f->http);
        int free_n = conc - inflight;
        int stopping = stop_signals > 0;
        int pending = f->outcomes->nelts;
        int flush = pending && (inflight == 0 || pending >= (conc + 1) / 2 ||
                                now - f->first_outcome >= apr_time_from_msec(FWD_FLUSH_MS));
        /* Outcomes may make the next event of their payment ready: their
         * cycle leases too. Otherwise leases wait for half the slots, so
         * that a cycle carries a batch, not one event. */
        int lease = !stopping && free_n > 0 &&
                    (flush || ((free_n >= (conc + 1) / 2 || inflight == 0) &&
                               (more || new_events || (next_due && next_due <= now))));
        apr_int64_t wait_ms;

        if (!stopping && !drain && !db_down)
            purge_step(f, cp, now);
        if ((flush || lease) && now >= db_retry_at) {
            wh_fq_cycle_result c;
            memset(&c, 0, sizeof(c));
            apr_pool_clear(cp);
            if (cycle(f, cp, lease ? free_n : 0, &c) != 0) {
                if (!db_down) {
                    logline("error", "the inbox database failed; retrying every %d ms "
                            "(requests in flight go on)", FWD_DB_RETRY_MS);
                    db_down_since = now;
                }
                db_down = 1;
                if (drain && now - db_down_since > apr_time_from_sec(FWD_DRAIN_DB_GIVEUP_S)) {
                    logline("error", "--drain: the inbox database has failed for %d s; "
                            "giving up", FWD_DRAIN_DB_GIVEUP_S);
                    return 1;
                }
                db_retry_at = now + apr_time_from_msec(FWD_DB_RETRY_MS);
                if (stopping && inflight == 0 && ++stop_tries >= FWD_STOP_WRITE_TRIES) {
                    logline("error", "stopping with %d outcome(s) unwritten: those "
                            "events will be forwarded again", f->outcomes->nelts);
                    return 1;
                }
            } else {
                if (db_down)
                    logline("info", "the inbox database is back");
                db_down = 0;
                if (lease) {
                    more = c.leases->nelts == free_n;
                    new_events = c.backlog;
                    next_due = c.next_due;
                }
                if (c.ingested)
                    more = 1;
            }
            continue;
        }
        if (stopping && inflight == 0 && f->outcomes->nelts == 0)
            break;
        /* Nothing to write or lease now: look for new events now and then. */
        if (!stopping && !more && !db_down && now >= next_peek) {
            int fresh = 0;
            apr_time_t due = 0;
            apr_pool_clear(cp);
            next_peek = now + apr_time_from_msec(FWD_IDLE_POLL_MS);
            if (wh_fq_peek(f->fq, cp, &fresh, &due) == 0) {
                new_events = fresh;
                next_due = due;
                if (drain && !fresh && !due && inflight == 0 && f->outcomes->nelts == 0)
                    break;
                if (fresh || (due && due <= now))
                    continue;
            }
        }
        if (interval_ms > 0 && now >= next_status) {
            apr_pool_clear(cp);
            status_line(f, cp, now);
            next_status = now + apr_time_from_msec(interval_ms);
        }
        /* Sleep in curl until an answer comes, or until the next thing
         * due: a retry, a peek, a flush, a status line. */
        wait_ms = FWD_IDLE_POLL_MS;
        if (next_due && next_due > now && apr_time_as_msec(next_due - now) < wait_ms)
            wait_ms = apr_time_as_msec(next_due - now) + 1;
        if (f->outcomes->nelts)
            wait_ms = wait_ms < FWD_FLUSH_MS ? wait_ms : FWD_FLUSH_MS;
        if (more && !db_down && free_n > 0 && !stopping)
            wait_ms = 1;
        if (f->purge && apr_time_as_msec(f->next_purge - now) < wait_ms)
            wait_ms = f->next_purge > now ? apr_time_as_msec(f->next_purge - now) + 1 : 1;
        wh_fwd_http_run(f->http, (int)wait_ms, on_done, f);
    }
    apr_pool_clear(cp);
    (void)wh_fq_alive(f->fq, cp, started, apr_time_now(), 1);
    if (drain)
        printf("drained: delivered=%" APR_INT64_T_FMT " retries=%" APR_INT64_T_FMT
               " dead=%" APR_INT64_T_FMT " in %.1fs\n", f->forwarded_total, f->retried,
               f->died, (double)(apr_time_now() - started) / APR_USEC_PER_SEC);
    else
        logline("info", "stopped: delivered=%" APR_INT64_T_FMT " in this run",
                f->forwarded_total);
    fflush(stdout);
    return 0;
}

static const char *owner_id(apr_pool_t *p)
{
    char host[256] = "localhost";
    unsigned char r[6];

    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    if (apr_generate_random_bytes(r, sizeof(r)) != APR_SUCCESS)
        memset(r, 0, sizeof(r));
    return apr_psprintf(p, "%.64s:%ld:%02x%02x%02x%02x%02x%02x", host, (long)getpid(),
                        r[0], r[1], r[2], r[3], r[4], r[5]);
}

int wh_cmd_forward(int argc, const char *const *argv, apr_pool_t *p)
{
    static const apr_getopt_option_t opts[] = {
        { "config", 'c', 1, "wirehook configuration file" },
        { "drain", 'd', 0, "exit once every stored event is forwarded or dead" },
        { "once", 'o', 0, "the same as --drain" },
        { "interval", 'i', 1, "seconds between status lines, 0: none (10)" },
        { "purge-interval", 'P', 1, "between purges (InboxRetention), 0: none (10m)" },
        { "verbose", 'v', 0, "log every retry; twice: every event forwarded" },
        { "quiet", 'q', 0, "no status lines" },
        { NULL, 0, 0, NULL }
    };
    const char *config = NULL, *arg, *err;
    apr_int64_t interval_ms = 10000, purge_ms = 600000;
    int drain = 0, ch, rc;
    apr_getopt_t *os;
    apr_status_t rv;
    wh_config *cfg = NULL;
    wh_logger lg = { inbox_log, NULL };
    fwd f;

    if (wh_cli_wants_help(argc, argv)) {
        printf("usage: wirehook " FORWARD_USAGE "\n\n"
               "Forwards every event the inbox (InboxParams) stores to\n"
               "ForwardUrl: POST of the body exactly as received, the verified facts\n"
               "as Wirehook-* headers, Idempotency-Key: the notificationId, and a\n"
               "signature by ForwardSecretFile in the bank's scheme (TimestampHeader,\n"
               "SignatureHeader). 2xx: forwarded. 408, 429, 5xx and no answer:\n"
               "retried with jittered exponential backoff (ForwardBackoffMin..Max,\n"
               "Retry-After honoured). Other 4xx: dead at once. ForwardMaxAttempts\n"
               "and ForwardMaxAge: dead. Events of one paymentId go in arrival order,\n"
               "one at a time; other payments are not held up.\n\n"
               "  --config F     the configuration file (InboxParams, ForwardUrl, ...)\n"
               "  --drain        exit once nothing is left to forward (forwarded or\n"
               "                 dead); prints a summary line (--once: the same)\n"
               "  --interval S   a status line every S seconds on stdout (default 10,\n"
               "                 0: none): delivered (events forwarded), rate, retrying,\n"
               "                 dead, ...\n"
               "  --purge-interval S  with InboxRetention set, purges what the\n"
               "                 retention no longer keeps every S (default 10m, 0: never;\n"
               "                 not with --drain), as `wirehook inbox purge` does\n"
               "  --verbose      log every retry on stderr; twice: every event forwarded\n"
               "  --quiet        no status lines\n\n"
               "ForwardSecretFile is read again when it changes (its first line signs).\n"
               "SIGTERM, SIGINT, SIGHUP: stop leasing, wait for the requests in flight,\n"
               "write their outcomes, exit 0; a second signal: exit 1 at once (what was\n"
               "in flight is sent again later). Exit 1 when it cannot start, 2 on usage\n"
               "errors. Logs go to stderr, status lines to stdout.\n"
               "See wirehook inbox dead ... for the dead letters.\n");
        return 0;
    }
    memset(&f, 0, sizeof(f));
    if (!(os = wh_cli_getopt(p, argc, argv, opts)))
        return 1;
    while ((rv = apr_getopt_long(os, opts, &ch, &arg)) == APR_SUCCESS) {
        switch (ch) {
        case 'c': config = arg; break;
        case 'd': case 'o': drain = 1; break;
        case 'v': f.verbose++; break;
        case 'q': interval_ms = 0; break;
        case 'i':
            if (wh_parse_duration_ms(p, arg, 0, 86400000, &interval_ms) != NULL)
                return wh_cli_usage(FORWARD_USAGE);
            break;
        case 'P':
            if (wh_parse_duration_ms(p, arg, 0, 86400000, &purge_ms) != NULL)
                return wh_cli_usage(FORWARD_USAGE);
            break;
        }
    }
    if (rv != APR_EOF || !config || os->ind != os->argc)
        return wh_cli_usage(FORWARD_USAGE);

    /* the inbox and the forwarding settings alone: the forwarder runs as
     * the web server's user and never reads the bank's secret or the
     * htpasswd file, which may be root's alone */
    if ((err = wh_config_load_parts(p, config, WH_PART_INBOX | WH_PART_FORWARD,
                                    &cfg)) != NULL) {
        fprintf(stderr, "wirehook forward: %s\n", err);
        return 1;
    }
    if ((err = wh_fwd_secret_open(p, cfg, &f.secret)) != NULL) {
        fprintf(stderr, "wirehook forward: %s\n", err);
        return 1;
    }
    /* a secret in quotes or with a space at its end: legal, and the
     * application would refuse every request */
    if ((err = wh_config_lint_warnings(p, cfg, WH_PART_FORWARD)) != NULL) {
        char *lines = apr_pstrdup(p, err), *state = NULL;
        for (char *l = apr_strtok(lines, "\n", &state); l; l = apr_strtok(NULL, "\n", &state))
            logline("warn", "%s", l);
    }
    if ((err = wh_inbox_open(p, cfg, &lg, &f.ib)) != NULL ||
        (err = wh_fq_open(p, f.ib, cfg, owner_id(p), &f.fq)) != NULL) {
        fprintf(stderr, "wirehook forward: %s\n", err);
        return 1;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "wirehook forward: cannot initialise libcurl\n");
        return 1;
    }
    f.p = p;
    f.cfg = cfg;
    f.nslots = cfg->forward_concurrency;
    f.slots = apr_pcalloc(p, sizeof(slot) * (apr_size_t)f.nslots);
    if (apr_generate_random_bytes((unsigned char *)&f.rng, sizeof(f.rng)) != APR_SUCCESS
        || f.rng == 0)
        f.rng = (apr_uint64_t)apr_time_now() | 1;
    /* retention, when a key asks for it: the queue says what is its */
    if (wh_purge_configured(cfg) && purge_ms > 0) {
        if ((err = wh_fq_purge_guard(p, f.ib, cfg, &f.guard)) != NULL) {
            fprintf(stderr, "wirehook forward: %s\n", err);
            return 1;
        }
        f.purge_every_ms = purge_ms;
        f.next_purge = apr_time_now() + apr_time_from_msec(FWD_PURGE_FIRST_MS);
        apr_pool_create(&f.purge_pool, p);
    }
    apr_pool_create(&f.opool, p);
    f.outcomes = apr_array_make(f.opool, 64, sizeof(wh_fq_outcome));
    f.interval_start = apr_time_now();
    /* its secret is set by each cycle that starts requests */
    if (!(f.http = wh_fwd_http_create(p, cfg, NULL, &err))) {
        fprintf(stderr, "wirehook forward: %s\n", err);
        curl_global_cleanup();
        return 1;
    }
    /* SIGHUP too: a closed terminal or a supervisor's hang-up must not cut
     * requests in flight (they would be sent again); the supervisor starts
     * it again, and the configuration is read at a start */
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGHUP, on_signal);
    signal(SIGPIPE, SIG_IGN);
    logline("info", "forwarding %s to %s (%d at once)%s",
            cfg->inbox_driver_name, wh_cli_safe_url(p, cfg->forward_url), f.nslots,
            drain ? ", until the queue is empty" : "");
    rc = run(&f, drain, interval_ms);
    wh_fwd_http_destroy(f.http);
    curl_global_cleanup();
    return rc;
}
