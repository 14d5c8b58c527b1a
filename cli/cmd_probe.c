/* wirehook probe: grade any receiver of the bank's notifications.
 *
 *   wirehook probe --config F (--user U:PASS | --user-file F) URL
 *                  [--format text|json|junit] [--only IDS] [--list] ...
 *
 * The probes are data (probe/vectors.json, built in; docs/probe.md); the
 * core (shared/probe) builds each request and grades its answer; this
 * file orders the sending: the valid notification first (no answer at
 * all: exit 2), then one request at a time at most --rate a second,
 * while the slow probes and the paused replay run beside them, each on
 * a connection of its own. Everything goes to URL alone. The secret and
 * the Basic password are never printed. Exit 0 when no critical or high
 * probe failed, 1 otherwise, 2 when it could not run. */
#include "commands.h"
#include "cli_util.h"
#include "probe_http.h"
#include "probe_vectors.h"
#include "probe/wh_probe.h"
#include "config/wh_config_load.h"
#include <apr_strings.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_USAGE                                                  \
    "probe --config F (--user U:PASS | --user-file F) URL\n"         \
    "       [--format text|json|junit] [--only IDS] [--list]\n"      \
    "       [--vectors FILE] [--rate N] [--deliveries URL|FILE]\n"   \
    "       [--replay-pause S] [--slow S] [--stall-limit S]\n"       \
    "       [--timing-samples N] [--secret-index N] [--timeout S]\n" \
    "       [--cacert FILE] [--insecure]"

/* largest vectors file or deliveries source read */
#define PROBE_MAX_FILE (64u * 1024u * 1024u)

typedef enum { FMT_TEXT, FMT_JSON, FMT_JUNIT } out_format;

typedef struct run run;

typedef struct {
    wh_probe_result res;
    run *run;
    /* timing: the server's times of each side, and whether every answer
     * was a refusal */
    apr_array_header_t *times[2];
    int all_refused;
} job;

typedef enum { SEND_FIRST, SEND_COPY, SEND_SAMPLE } send_kind;

typedef struct {
    send_kind kind;
    job *job;
    int side;       /* a sample's side */
    apr_time_t due; /* a background send: not before */
    int background;
} outgoing;

struct run {
    apr_pool_t *p;
    const wh_probe_set *set;
    const wh_config *cfg;
    wh_probe_ctx ctx;
    probe_http *http;
    apr_interval_time_t interval; /* 1 / rate */
    apr_time_t next_allowed;
    apr_array_header_t *fg; /* of outgoing *, one at a time in order */
    int fg_head, fg_busy;
    apr_array_header_t *bg; /* of outgoing *, each when due */
    int bg_running;
    apr_int64_t replay_pause;
    job *baseline; /* "valid", sent first */
    int baseline_done;
    int clock_known;
    apr_int64_t clock_offset;
    int answered; /* answers with a status, of any probe */
};

/* ---------------------------------------------------------- sending --- */

static void on_done(void *ctx, probe_transfer *t, const wh_probe_answer *a);

static outgoing *new_send(run *r, send_kind kind, job *j, int side)
{
    outgoing *s = apr_pcalloc(r->p, sizeof(*s));
    s->kind = kind;
    s->job = j;
    s->side = side;
    return s;
}

static void queue_front(run *r, outgoing *s)
{
    /* the copy of an at-once replay goes next, before the queue goes on */
    APR_ARRAY_PUSH(r->fg, outgoing *) = NULL;
    for (int i = r->fg->nelts - 1; i > r->fg_head; i--)
        APR_ARRAY_IDX(r->fg, i, outgoing *) = APR_ARRAY_IDX(r->fg, i - 1,
                                                            outgoing *);
    APR_ARRAY_IDX(r->fg, r->fg_head, outgoing *) = s;
}

static const wh_probe_parts *parts_of(const outgoing *s)
{
    const wh_probe *pr = s->job->res.probe;
    if (s->kind == SEND_SAMPLE)
        return s->side ? pr->timing_b : pr->timing_a;
    return pr->parts;
}

/* Builds (or for a copy reuses) the request and starts it. 0 when it
 * went out; -1 when nothing was sent (the job says why). */
static int start(run *r, outgoing *s)
{
    job *j = s->job;
    const wh_probe_req *req = j->res.req;
    const char *err;

    if (s->kind != SEND_COPY) {
        const wh_probe_parts *parts = parts_of(s);
        wh_probe_req *built;
        if ((err = wh_probe_build(r->p, &r->ctx, r->set, parts, apr_time_now(),
                                  &built))
            != NULL) {
            j->res.outcome = WH_OUT_ERROR;
            j->res.message = apr_pstrcat(r->p, "cannot build: ", err, NULL);
            return -1;
        }
        req = built;
        if (s->kind == SEND_FIRST)
            j->res.req = built;
        if (built->skipped)
            return -1;
    }
    if (!probe_http_start(r->http, req, on_done, s)) {
        j->res.outcome = WH_OUT_ERROR;
        j->res.message = "libcurl refused the request";
        return -1;
    }
    r->next_allowed = apr_time_now() + r->interval;
    if (s->background)
        r->bg_running++;
    else
        r->fg_busy = 1;
    return 0;
}

static void on_done(void *ctx, probe_transfer *t, const wh_probe_answer *a)
{
    outgoing *s = ctx;
    job *j = s->job;
    run *r = j->run;
    apr_time_t now = apr_time_now(), date = probe_transfer_date(t);
    double st;

    if (s->background)
        r->bg_running--;
    else
        r->fg_busy = 0;
    if (a->status > 0)
        r->answered++;
    /* httpd's Date is when the request line arrived, in whole seconds:
     * compared with a quick request's start, off by a second at most */
    if (date && !r->clock_known && s->kind != SEND_COPY
        && wh_probe_pace_of(j->res.probe->parts) == WH_PACE_NONE) {
        r->clock_known = 1;
        r->clock_offset = apr_time_sec(date - probe_transfer_started(t)
                                       + APR_USEC_PER_SEC / 2);
    }
    switch (s->kind) {
    case SEND_FIRST:
        j->res.answer = a;
        if (j == r->baseline)
            r->baseline_done = 1;
        if (wh_probe_replay_of(j->res.probe->parts) == WH_REPLAY_AT_ONCE) {
            queue_front(r, new_send(r, SEND_COPY, j, 0));
        }
        else if (wh_probe_replay_of(j->res.probe->parts)
                 == WH_REPLAY_AFTER_PAUSE) {
            outgoing *c = new_send(r, SEND_COPY, j, 0);
            c->background = 1;
            c->due = now + apr_time_from_sec(r->replay_pause);
            APR_ARRAY_PUSH(r->bg, outgoing *) = c;
            fprintf(stderr,
                    "wirehook probe: %s: the copy goes in %" APR_INT64_T_FMT
                    " s; restart the receiver before then to see whether "
                    "its replay memory survives a restart\n",
                    j->res.probe->id, r->replay_pause);
        }
        break;
    case SEND_COPY: j->res.copy = a; break;
    case SEND_SAMPLE:
        if (wh_probe_class_of(a) != WH_CLASS_REFUSED)
            j->all_refused = 0;
        st = probe_transfer_server_time(t);
        APR_ARRAY_PUSH(j->times[s->side], double) = st;
        break;
    }
}

/* When s may start: the rate, a background send's due time, and for a
 * shifted timestamp the start of a second (wh_probe_at_second_start). */
static apr_time_t ready_at(const run *r, const outgoing *s, apr_time_t now)
{
    apr_time_t at = r->next_allowed > s->due ? r->next_allowed : s->due;
    if (at < now)
        at = now;
    if (s->kind != SEND_COPY && wh_probe_at_second_start(parts_of(s))
        && apr_time_usec(at) >= WH_PROBE_SECOND_START)
        at += APR_USEC_PER_SEC - apr_time_usec(at);
    return at;
}

/* The earliest moment something may start; 0: nothing waits. */
static apr_time_t next_event(const run *r, apr_time_t now)
{
    apr_time_t at = 0;
    if (!r->fg_busy && r->fg_head < r->fg->nelts)
        at = ready_at(r, APR_ARRAY_IDX(r->fg, r->fg_head, outgoing *), now);
    for (int i = 0; r->baseline_done && i < r->bg->nelts; i++) {
        apr_time_t due = ready_at(r, APR_ARRAY_IDX(r->bg, i, outgoing *), now);
        if (!at || due < at)
            at = due;
    }
    return at;
}

/* Runs every send. Returns NULL, or why the run could not go on. */
static const char *run_all(run *r)
{
    for (;;) {
        apr_time_t now = apr_time_now();
        if (!r->fg_busy && r->fg_head < r->fg->nelts
            && ready_at(r, APR_ARRAY_IDX(r->fg, r->fg_head, outgoing *), now)
                   <= now) {
            outgoing *s = APR_ARRAY_IDX(r->fg, r->fg_head, outgoing *);
            r->fg_head++;
            if (start(r, s) != 0 && s->job == r->baseline)
                r->baseline_done = 1; /* skipped or broken: go on */
            continue;
        }
        if (r->baseline && r->baseline_done && !r->baseline->res.answer
            && r->baseline->res.outcome == WH_OUT_ERROR)
            return r->baseline->res.message;
        if (r->baseline && r->baseline_done && r->baseline->res.answer
            && r->baseline->res.answer->status <= 0)
            return apr_psprintf(
                r->p, "no answer to the valid notification: %s",
                r->baseline->res.answer->error ? r->baseline->res.answer->error
                                               : "none");
        for (int i = 0; r->baseline_done && i < r->bg->nelts; i++) {
            outgoing *s = APR_ARRAY_IDX(r->bg, i, outgoing *);
            if (ready_at(r, s, now) <= now) {
                APR_ARRAY_IDX(r->bg, i, outgoing *) = APR_ARRAY_IDX(
                    r->bg, r->bg->nelts - 1, outgoing *);
                r->bg->nelts--;
                start(r, s);
                break;
            }
        }
        if (!r->fg_busy && r->fg_head >= r->fg->nelts && !r->bg->nelts
            && !r->bg_running)
            return NULL;
        apr_time_t at = next_event(r, now);
        apr_interval_time_t wait = apr_time_from_msec(200);
        if (at && at - now < wait)
            wait = at > now ? at - now : 0;
        probe_http_step(r->http, wait);
    }
}

/* ----------------------------------------------------- deliveries --- */

static int occurrences(const char *hay, apr_size_t len, const char *needle)
{
    apr_size_t n = strlen(needle);
    int count = 0;
    for (const char *s = hay; n && (apr_size_t)(s - hay) + n <= len;) {
        const char *at = memmem(s, len - (apr_size_t)(s - hay), needle, n);
        if (!at)
            break;
        count++;
        s = at + n;
    }
    return count;
}

static const char *count_deliveries(run *r, const probe_http_opts *ho,
                                    const char *source,
                                    apr_array_header_t *jobs)
{
    const char *body, *err;
    apr_size_t len;
    int replays = 0;

    for (int i = 0; i < jobs->nelts; i++)
        replays += APR_ARRAY_IDX(jobs, i, job *)->res.expect == WH_EXPECT_ONCE;
    if (!replays)
        return NULL;
    if ((err = probe_http_fetch(r->p, ho, source, PROBE_MAX_FILE, &body, &len))
        != NULL)
        return err;
    for (int i = 0; i < jobs->nelts; i++) {
        job *j = APR_ARRAY_IDX(jobs, i, job *);
        if (j->res.expect == WH_EXPECT_ONCE && j->res.req
            && j->res.req->notification_id)
            j->res.deliveries = occurrences(body, len,
                                            j->res.req->notification_id);
    }
    return NULL;
}

/* ------------------------------------------------------------ options --- */

static int parse_int(const char *s, apr_int64_t lo, apr_int64_t hi,
                     apr_int64_t *out)
{
    char *end;
    apr_int64_t v = apr_strtoi64(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static const char *read_user_file(apr_pool_t *p, const char *path,
                                  const char **out)
{
    char *buf, *nl;
    apr_size_t len;
    const char *err = wh_cli_read_input(p, path, 4096, &buf, &len);
    if (err)
        return err;
    if ((nl = strpbrk(buf, "\r\n")) != NULL)
        *nl = '\0';
    if (!strchr(buf, ':'))
        return apr_psprintf(p, "%s: expected one line USER:PASSWORD", path);
    *out = buf;
    return NULL;
}

static int list_probes(const wh_probe_set *set, const char *only,
                       out_format fmt, const char *text)
{
    if (fmt == FMT_JSON) {
        fputs(text, stdout);
        return 0;
    }
    for (int i = 0; i < set->probes->nelts; i++) {
        const wh_probe *pr = APR_ARRAY_IDX(set->probes, i, const wh_probe *);
        if (wh_probe_selected(only, pr->id))
            printf("%-40s %-8s %-13s %s\n", pr->id,
                   wh_probe_severity_name(pr->severity),
                   pr->expect_key ? pr->expect_key
                                  : wh_probe_expect_name(pr->expect),
                   pr->description);
    }
    return 0;
}

static int help(void)
{
    printf(
        "usage: wirehook " PROBE_USAGE "\n\n"
        "Sends a battery of requests to URL, as the bank would and as a\n"
        "forger would, and grades each answer: forged or stale signatures,\n"
        "every timestamp case, Basic auth, the JSON and every schema rule,\n"
        "oversized bodies, replays, slow bodies. The configuration file\n"
        "gives the signing secret, the header names, TimestampUnit and\n"
        "Tolerance, SignedUrl/SignedUrlForm, MaxBodySize and UnknownStatus;\n"
        "--user or --user-file the bank's Basic credentials. The probes are\n"
        "the vectors of probe/vectors.json (built in; docs/probe.md).\n\n"
        "  --format F         text (default), json\n"
        "                     (probe/report.schema.json) or junit\n"
        "  --only IDS         only these probes: ids or groups,\n"
        "                     comma-separated (signature,timestamp.stale_1s)\n"
        "  --list             list the probes (--format json: the vectors)\n"
        "  --vectors FILE     another vectors file (same format version)\n"
        "  --rate N           at most N requests a second (10)\n"
        "  --deliveries SRC   a URL or file listing what the application\n"
        "                     received: replays are graded by counting\n"
        "                     their notificationId there\n"
        "  --replay-pause S   seconds before the paused replay's copy (30,\n"
        "                     below TimestampTolerance)\n"
        "  --slow S           seconds a slow body takes (10, 2 or more)\n"
        "  --stall-limit S    seconds a stalled request is held open (60)\n"
        "  --timing-samples N requests per side of the timing probe (20)\n"
        "  --secret-index N   sign with the Nth secret of the file (1)\n"
        "  --timeout S        seconds per request (30)\n"
        "  --cacert FILE      CA bundle to trust for an https URL\n"
        "  --insecure         do not verify the server's TLS certificate\n\n"
        "Lists failures first, each with the request and the answer. The\n"
        "secret and the password are never printed. Exit 0 when no\n"
        "critical or high probe failed, 1 when one did, 2 when it could\n"
        "not run.\n");
    return 0;
}

/* An absolute http(s) URL without credentials in it: the probe's own
 * Authorization header is the only one sent. */
static int url_ok(const char *url)
{
    const char *host;
    if (strncmp(url, "http://", 7) == 0)
        host = url + 7;
    else if (strncmp(url, "https://", 8) == 0)
        host = url + 8;
    else
        return 0;
    const char *at = strchr(host, '@'), *slash = strchr(host, '/');
    return *host && *host != '/' && (!at || (slash && at > slash));
}

/* ---------------------------------------------------------------- main --- */

typedef struct {
    const char *config, *user, *user_file, *url, *only, *vectors;
    const char *deliveries;
    out_format fmt;
    int list;
    apr_int64_t rate, replay_pause, slow, stall_limit, samples, secret_index,
        timeout;
    int pause_given, slow_given;
    probe_http_opts http;
} probe_opts;

static int parse_options(int argc, const char *const *argv, apr_pool_t *p,
                         probe_opts *o)
{
    static const apr_getopt_option_t opts[] = {
        {"config", 'c', 1, "wirehook configuration file"},
        {"user", 'U', 1, "Basic credentials user:password"},
        {"user-file", 'F', 1, "file holding USER:PASSWORD"},
        {"format", 'f', 1, "text, json or junit"},
        {"only", 'o', 1, "probe ids or groups"},
        {"list", 'l', 0, "list the probes"},
        {"vectors", 'V', 1, "vectors file"},
        {"rate", 'r', 1, "requests a second"},
        {"deliveries", 'd', 1, "URL or file of the deliveries"},
        {"replay-pause", 'P', 1, "seconds before the paused copy"},
        {"slow", 's', 1, "seconds a slow body takes"},
        {"stall-limit", 'L', 1, "seconds a stall is held"},
        {"timing-samples", 'n', 1, "requests per side"},
        {"secret-index", 'i', 1, "the Nth secret signs"},
        {"timeout", 'w', 1, "seconds per request"},
        {"cacert", 'A', 1, "CA bundle"},
        {"insecure", 'k', 0, "no TLS verification"},
        {NULL, 0, 0, NULL}};
    const char *arg;
    apr_status_t rv;
    int ch, bad = 0;

    memset(o, 0, sizeof(*o));
    o->rate = 10;
    o->replay_pause = 30;
    o->slow = 10;
    o->stall_limit = 60;
    o->samples = 20;
    o->secret_index = 1;
    o->timeout = 30;
    apr_getopt_t *os = wh_cli_getopt(p, argc, argv, opts);
    if (!os)
        return -1;
    while ((rv = apr_getopt_long(os, opts, &ch, &arg)) == APR_SUCCESS) {
        switch (ch) {
        case 'c': o->config = arg; break;
        case 'U': o->user = arg; break;
        case 'F': o->user_file = arg; break;
        case 'f':
            if (strcmp(arg, "text") == 0)
                o->fmt = FMT_TEXT;
            else if (strcmp(arg, "json") == 0)
                o->fmt = FMT_JSON;
            else if (strcmp(arg, "junit") == 0)
                o->fmt = FMT_JUNIT;
            else
                bad = 1;
            break;
        case 'o': o->only = arg; break;
        case 'l': o->list = 1; break;
        case 'V': o->vectors = arg; break;
        case 'd': o->deliveries = arg; break;
        case 'r': bad |= parse_int(arg, 1, 1000, &o->rate); break;
        case 'P':
            bad |= parse_int(arg, 0, 86400, &o->replay_pause);
            o->pause_given = 1;
            break;
        case 's':
            bad |= parse_int(arg, 2, 3600, &o->slow);
            o->slow_given = 1;
            break;
        case 'L': bad |= parse_int(arg, 1, 3600, &o->stall_limit); break;
        case 'n': bad |= parse_int(arg, 0, 1000, &o->samples); break;
        case 'i': bad |= parse_int(arg, 1, 1000, &o->secret_index); break;
        case 'w': bad |= parse_int(arg, 1, 3600, &o->timeout); break;
        case 'A': o->http.cacert = arg; break;
        case 'k': o->http.insecure = 1; break;
        }
    }
    if (rv != APR_EOF || bad || os->argc - os->ind > 1)
        return -1;
    if (os->ind < os->argc)
        o->url = os->argv[os->ind];
    if (!o->list && (!o->config || !o->url || (!o->user == !o->user_file)))
        return -1;
    return 0;
}

static const char *load_vectors(apr_pool_t *p, const probe_opts *o,
                                wh_probe_set **set, const char **text)
{
    const char *err;
    apr_size_t len;
    if (o->vectors) {
        char *buf;
        if ((err = wh_cli_read_input(p, o->vectors, PROBE_MAX_FILE, &buf,
                                     &len))
            != NULL)
            return err;
        *text = buf;
    }
    else {
        *text = wh_probe_vectors_json;
        len = strlen(wh_probe_vectors_json);
    }
    if ((err = wh_probe_set_load(p, *text, len, set)) != NULL)
        return apr_psprintf(p, "%s: %s",
                            o->vectors ? o->vectors
                                       : "built-in "
                                         "vectors",
                            err);
    return NULL;
}

/* The jobs of the selected probes, queued: the valid notification first,
 * the paced ones to run beside the rest, every timing sample interleaved
 * a b b a a b ... so that a drift in the receiver's speed favours
 * neither side. */
static apr_array_header_t *plan(run *r, const probe_opts *o)
{
    apr_array_header_t *jobs = apr_array_make(r->p, 128, sizeof(job *));
    for (int i = 0; i < r->set->probes->nelts; i++) {
        const wh_probe *pr = APR_ARRAY_IDX(r->set->probes, i,
                                           const wh_probe *);
        if (!wh_probe_selected(o->only, pr->id))
            continue;
        job *j = apr_pcalloc(r->p, sizeof(*j));
        j->run = r;
        j->res.probe = pr;
        j->res.expect = wh_probe_expectation(pr, r->cfg);
        j->res.deliveries = -1;
        j->all_refused = 1;
        APR_ARRAY_PUSH(jobs, job *) = j;
        if (strcmp(pr->id, "valid") == 0)
            r->baseline = j;
    }
    if (r->baseline)
        APR_ARRAY_PUSH(r->fg, outgoing *) = new_send(r, SEND_FIRST,
                                                     r->baseline, 0);
    for (int i = 0; i < jobs->nelts; i++) {
        job *j = APR_ARRAY_IDX(jobs, i, job *);
        if (j == r->baseline)
            continue;
        if (j->res.probe->is_timing) {
            j->times[0] = apr_array_make(r->p, (int)o->samples,
                                         sizeof(double));
            j->times[1] = apr_array_make(r->p, (int)o->samples,
                                         sizeof(double));
            for (int k = 0; k < 2 * o->samples; k++)
                APR_ARRAY_PUSH(r->fg, outgoing *) = new_send(
                    r, SEND_SAMPLE, j, (k % 2) ^ ((k / 2) % 2));
            continue;
        }
        outgoing *s = new_send(r, SEND_FIRST, j, 0);
        if (wh_probe_pace_of(j->res.probe->parts) != WH_PACE_NONE) {
            s->background = 1;
            APR_ARRAY_PUSH(r->bg, outgoing *) = s;
        }
        else {
            APR_ARRAY_PUSH(r->fg, outgoing *) = s;
        }
    }
    r->baseline_done = r->baseline == NULL;
    return jobs;
}

static void grade_all(run *r, apr_array_header_t *jobs, wh_probe_report *rep)
{
    for (int i = 0; i < jobs->nelts; i++) {
        job *j = APR_ARRAY_IDX(jobs, i, job *);
        wh_probe_result *res = &j->res;
        if (res->probe->is_timing && res->outcome != WH_OUT_ERROR)
            wh_probe_grade_timing(r->p, res, (const double *)j->times[0]->elts,
                                  j->times[0]->nelts,
                                  (const double *)j->times[1]->elts,
                                  j->times[1]->nelts, j->all_refused);
        else if (res->outcome != WH_OUT_ERROR)
            wh_probe_grade(r->p, res);
        else
            res->severity = res->probe->severity;
        APR_ARRAY_PUSH(rep->results, wh_probe_result *) = res;
    }
}

int wh_cmd_probe(int argc, const char *const *argv, apr_pool_t *p)
{
    probe_opts o;
    wh_probe_set *set;
    wh_config *cfg = NULL;
    const char *err, *vtext, *password;

    if (wh_cli_wants_help(argc, argv))
        return help();
    if (parse_options(argc, argv, p, &o) != 0)
        return wh_cli_usage(PROBE_USAGE);
    if ((err = load_vectors(p, &o, &set, &vtext)) != NULL) {
        fprintf(stderr, "wirehook probe: %s\n", err);
        return 2;
    }
    if ((err = wh_probe_unmatched(p, set, o.only)) != NULL) {
        fprintf(stderr,
                "wirehook probe: --only: no probe is called %s "
                "(wirehook probe --list)\n",
                err);
        return 2;
    }
    if (o.list)
        return list_probes(set, o.only, o.fmt, vtext);
    if (!url_ok(o.url)) {
        fprintf(stderr,
                "wirehook probe: %s: give an http:// or https:// URL "
                "without credentials in it (--user gives them)\n",
                wh_cli_safe_url(p, o.url));
        return 2;
    }
    if (o.user_file
        && (err = read_user_file(p, o.user_file, &o.user)) != NULL) {
        fprintf(stderr, "wirehook probe: %s\n", err);
        return 2;
    }
    password = strchr(o.user, ':');
    if (!password) {
        fprintf(stderr, "wirehook probe: --user: expected USER:PASSWORD\n");
        return 2;
    }
    /* the signing secret and the header names; the htpasswd file is the
     * receiver's, not needed here */
    if ((err = wh_config_load_parts(p, o.config, WH_PART_SECRETS, &cfg))
        != NULL) {
        fprintf(stderr, "wirehook probe: %s\n", err);
        return 2;
    }
    if (o.secret_index > cfg->secrets->nelts) {
        fprintf(stderr,
                "wirehook probe: --secret-index %" APR_INT64_T_FMT
                ": the secret file holds %d secret(s)\n",
                o.secret_index, cfg->secrets->nelts);
        return 2;
    }
    /* the copy must still be fresh, and a slow body within the tolerance */
    apr_int64_t tol = cfg->timestamp_tolerance;
    if (!o.pause_given && o.replay_pause >= tol)
        o.replay_pause = tol / 2;
    if (!o.slow_given && o.slow >= tol)
        o.slow = tol / 2 < 2 ? 2 : tol / 2;
    if (o.replay_pause >= tol || o.slow >= tol) {
        fprintf(stderr,
                "wirehook probe: --replay-pause and --slow must be "
                "below TimestampTolerance (%" APR_INT64_T_FMT " s)\n",
                tol);
        return 2;
    }

    run r;
    memset(&r, 0, sizeof(r));
    r.p = p;
    r.set = set;
    r.cfg = cfg;
    const wh_secret *secret = &APR_ARRAY_IDX(
        cfg->secrets, (int)o.secret_index - 1, wh_secret);
    r.ctx.cfg = cfg;
    r.ctx.secret = secret->key;
    r.ctx.secret_len = secret->len;
    r.ctx.signed_url = wh_probe_signed_url(p, cfg, o.url);
    r.ctx.user = apr_pstrmemdup(p, o.user, (apr_size_t)(password - o.user));
    r.ctx.password = password + 1;
    r.ctx.slow_seconds = o.slow;
    r.interval = APR_USEC_PER_SEC / o.rate;
    r.replay_pause = o.replay_pause;
    r.fg = apr_array_make(p, 256, sizeof(outgoing *));
    r.bg = apr_array_make(p, 8, sizeof(outgoing *));
    if (!r.ctx.signed_url) {
        fprintf(stderr,
                "wirehook probe: cannot tell what the receiver signs "
                "for %s\n",
                wh_cli_safe_url(p, o.url));
        return 2;
    }
    o.http.url = o.url;
    o.http.timeout = (long)o.timeout;
    o.http.stall_limit = o.stall_limit;

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "wirehook probe: cannot initialise libcurl\n");
        return 2;
    }
    int rc = 2;
    if ((err = probe_http_create(p, &o.http, &r.http)) != NULL) {
        fprintf(stderr, "wirehook probe: %s\n", err);
        curl_global_cleanup();
        return 2;
    }
    wh_probe_report rep;
    memset(&rep, 0, sizeof(rep));
    rep.started = apr_time_now();
    apr_array_header_t *jobs = plan(&r, &o);
    err = run_all(&r);
    if (!err && !r.answered)
        err = "no answer to any probe";
    if (err) {
        fprintf(stderr, "wirehook probe: %s: %s\n", wh_cli_safe_url(p, o.url),
                err);
        goto done;
    }
    if (r.baseline
        && wh_probe_class_of(r.baseline->res.answer) != WH_CLASS_ACCEPTED)
        fprintf(stderr,
                "wirehook probe: the valid notification was not "
                "accepted: check the configuration (secret, SignedUrl), "
                "the credentials and the URL; refusals below may prove "
                "nothing\n");
    if (o.deliveries
        && (err = count_deliveries(&r, &o.http, o.deliveries, jobs)) != NULL) {
        fprintf(stderr,
                "wirehook probe: the deliveries cannot be read "
                "(%s): replays are graded by their answers alone\n",
                err);
        o.deliveries = NULL;
    }
    rep.duration = apr_time_now() - rep.started;
    rep.target = wh_cli_safe_url(p, o.url);
    rep.vectors = o.vectors ? o.vectors : "built-in";
    rep.vectors_version = set->version;
    rep.cfg = cfg;
    rep.user = r.ctx.user;
    rep.deliveries = o.deliveries ? wh_cli_safe_url(p, o.deliveries) : NULL;
    rep.rate = (int)o.rate;
    rep.slow_seconds = o.slow;
    rep.replay_pause = o.replay_pause;
    rep.stall_limit = o.stall_limit;
    rep.timing_samples = (int)o.samples;
    rep.clock_offset_known = r.clock_known;
    rep.clock_offset = r.clock_offset;
    rep.results = apr_array_make(p, jobs->nelts, sizeof(wh_probe_result *));
    grade_all(&r, jobs, &rep);
    wh_probe_report_sort(&rep);
    fputs(o.fmt == FMT_JSON    ? wh_probe_report_json(p, &rep)
          : o.fmt == FMT_JUNIT ? wh_probe_report_junit(p, &rep)
                               : wh_probe_report_text(p, &rep),
          stdout);
    if (o.fmt == FMT_JSON)
        putchar('\n');
    fflush(stdout);
    rc = wh_probe_exit_status(&rep);
done:
    probe_http_destroy(r.http);
    curl_global_cleanup();
    return rc;
}
