/* The metrics (shared/metrics/): Prometheus's text format as written
 * (escaping, numbers, each family's HELP and TYPE before its samples),
 * the latency buckets, what is shown for which configuration, and the
 * inbox's and the forwarder's figures read from a real SQLite inbox. */
#include "inbox_fx.h"
#include "metrics/wh_expo.h"
#include "metrics/wh_metrics.h"
#include "inbox/wh_inbox_purge.h"
#include "inbox/wh_inbox_views.h"
#include "forward/wh_forward_queue.h"

#include <apr_strings.h>
#include <stdio.h>

#define T0 ((apr_time_t)APR_INT64_C(1800000000000000))
#define SEC(n) ((apr_time_t)(n) * APR_USEC_PER_SEC)
#define FFFD "\xEF\xBF\xBD"

static const char *text(const wh_expo *e)
{
    return wh_expo_text(e, NULL);
}

/* 1 when the line `want` (without its newline) is in s. */
static int has_line(const char *s, const char *want)
{
    apr_size_t n = strlen(want);
    for (const char *p = s; p && (p = strstr(p, want)) != NULL; p += n)
        if ((p == s || p[-1] == '\n') && p[n] == '\n')
            return 1;
    return 0;
}

static int count_of(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* The text format's structure, as promtool reads it: each family's HELP
 * then TYPE once, every sample named after the family last declared
 * (a histogram's _bucket, _sum, _count), no family declared twice, every
 * line ended. Returns NULL or what is wrong. */
static const char *structure(const char *s)
{
    apr_pool_t *p = wh_test_pool();
    apr_hash_t *seen = apr_hash_make(p);
    char *copy = apr_pstrdup(p, s), *last = NULL, *line;
    const char *fam = NULL, *type = NULL, *help_for = NULL;

    if (*s && s[strlen(s) - 1] != '\n')
        return "the last line has no newline";
    for (line = apr_strtok(copy, "\n", &last); line; line = apr_strtok(NULL, "\n", &last)) {
        char name[128];
        if (strncmp(line, "# HELP ", 7) == 0) {
            if (sscanf(line + 7, "%127s", name) != 1)
                return apr_pstrcat(p, "bad HELP: ", line, NULL);
            help_for = apr_pstrdup(p, name);
            continue;
        }
        if (strncmp(line, "# TYPE ", 7) == 0) {
            char t[32];
            if (sscanf(line + 7, "%127s %31s", name, t) != 2 || !help_for
                || strcmp(help_for, name) != 0)
                return apr_pstrcat(p, "TYPE without its HELP: ", line, NULL);
            if (apr_hash_get(seen, name, APR_HASH_KEY_STRING))
                return apr_pstrcat(p, "declared twice: ", name, NULL);
            apr_hash_set(seen, apr_pstrdup(p, name), APR_HASH_KEY_STRING, "");
            fam = apr_pstrdup(p, name);
            type = apr_pstrdup(p, t);
            continue;
        }
        if (!fam)
            return apr_pstrcat(p, "a sample before any TYPE: ", line, NULL);
        {
            apr_size_t n = strcspn(line, "{ ");
            const char *ok[] = { "", "_bucket", "_sum", "_count" };
            int good = 0;
            for (int k = 0; k < (strcmp(type, "histogram") == 0 ? 4 : 1); k++)
                good |= n == strlen(fam) + strlen(ok[k]) && strncmp(line, fam, strlen(fam)) == 0
                        && strncmp(line + strlen(fam), ok[k], strlen(ok[k])) == 0;
            if (!good)
                return apr_pstrcat(p, "not of family ", fam, ": ", line, NULL);
            if (strcmp(type, "counter") == 0
                && (strlen(fam) < 6 || strcmp(fam + strlen(fam) - 6, "_total") != 0))
                return apr_pstrcat(p, "a counter without _total: ", fam, NULL);
        }
    }
    return NULL;
}

/* ---- the format ---------------------------------------------------- */

static void test_expo_escaping(void)
{
    wh_expo *e = wh_expo_make(wh_test_pool());
    const char *l[] = { "config", "/etc/a \"b\"\\c\nd\xff", "code", "ok", NULL };

    wh_expo_family(e, "x_total", "counter", "a \\ help\nline \"quoted\"");
    wh_expo_u64(e, "x_total", l, 7);
    wh_expo_u64(e, "x_total", NULL, 0);
    ASSERT_STR(text(e), "# HELP x_total a \\\\ help\\nline \"quoted\"\n"
                        "# TYPE x_total counter\n"
                        "x_total{config=\"/etc/a \\\"b\\\"\\\\c\\nd" FFFD "\",code=\"ok\"} 7\n"
                        "x_total 0\n");
    /* valid UTF-8 passes unchanged */
    e = wh_expo_make(wh_test_pool());
    {
        const char *u[] = { "config", "/srv/zahlungseingang-f\xC3\xBCr-\xE2\x82\xAC", NULL };
        wh_expo_sample(e, "y", u, "1");
    }
    ASSERT_STR(text(e), "y{config=\"/srv/zahlungseingang-f\xC3\xBCr-\xE2\x82\xAC\"} 1\n");
}

static void test_expo_numbers(void)
{
    wh_expo *e = wh_expo_make(wh_test_pool());
    apr_size_t len = 0;

    wh_expo_double(e, "a", NULL, 0.25);
    wh_expo_double(e, "b", NULL, 1.0);
    wh_expo_double(e, "c", NULL, 0.1);
    wh_expo_double(e, "d", NULL, 1234567.000001);
    wh_expo_double(e, "e", NULL, 0.0);
    wh_expo_u64(e, "f", NULL, APR_UINT64_C(18446744073709551615));
    ASSERT_STR(wh_expo_text(e, &len), "a 0.25\nb 1\nc 0.1\nd 1234567.000001\ne 0\n"
                                      "f 18446744073709551615\n");
    CU_ASSERT_EQUAL(len, strlen(text(e)));
}

/* A text larger than the first buffer grows whole. */
static void test_expo_grows(void)
{
    wh_expo *e = wh_expo_make(wh_test_pool());
    apr_size_t len = 0;

    wh_expo_family(e, "big", "gauge", "many");
    for (int i = 0; i < 2000; i++) {
        const char *l[] = { "i", apr_psprintf(wh_test_pool(), "%04d", i), NULL };
        wh_expo_u64(e, "big", l, (apr_uint64_t)i);
    }
    wh_expo_text(e, &len);
    CU_ASSERT_EQUAL(count_of(text(e), "\n"), 2002);
    CU_ASSERT(has_line(text(e), "big{i=\"0000\"} 0"));
    CU_ASSERT(has_line(text(e), "big{i=\"1999\"} 1999"));
    CU_ASSERT_EQUAL(len, strlen(text(e)));
    CU_ASSERT_PTR_NULL(structure(text(e)));
}

/* ---- wirehook's metrics -------------------------------------------- */

static void test_latency_buckets(void)
{
    CU_ASSERT_EQUAL(wh_metrics_latency_bucket(0), 0);
    CU_ASSERT_EQUAL(wh_metrics_latency_bucket(-5), 0);
    CU_ASSERT_EQUAL(wh_metrics_latency_bucket(500), 0);           /* le is "<=" */
    CU_ASSERT_EQUAL(wh_metrics_latency_bucket(501), 1);
    CU_ASSERT_EQUAL(wh_metrics_latency_bucket(1000), 1);
    CU_ASSERT_EQUAL(wh_metrics_latency_bucket(10000000), WH_METRICS_LATENCY_BOUNDS_N - 1);
    CU_ASSERT_EQUAL(wh_metrics_latency_bucket(10000001), WH_METRICS_LATENCY_BOUNDS_N);
    CU_ASSERT_EQUAL(wh_metrics_latency_bucket(APR_INT64_C(1) << 50), WH_METRICS_LATENCY_BOUNDS_N);
    CU_ASSERT_EQUAL(WH_METRICS_LATENCY_BUCKETS, WH_METRICS_LATENCY_BOUNDS_N + 1);
}

static const wh_metrics_answer answers2[] = {
    { "accepted", 12 }, { "duplicate", 1 }, { "signature_mismatch", 3 }, { "other", 0 }
};

/* A: counted, an inbox that forwards, lmdb; B: counted, a shared replay
 * store that does not answer, no inbox; C: no counters (no slot), an
 * inbox that could not be read. */
static wh_metrics *fixture(wh_metrics_config *c)
{
    wh_metrics *m = apr_pcalloc(wh_test_pool(), sizeof(*m));

    memset(c, 0, 3 * sizeof(*c));
    c[0].config = "/etc/wirehook/a.conf";
    c[0].counted = 1;
    c[0].answers = answers2;
    c[0].nanswers = 4;
    c[0].inbox_stored = 5;
    c[0].inbox_duplicate = 1;
    c[0].latency[0] = 10;                   /* <= 0.5 ms */
    c[0].latency[4] = 2;                    /* <= 10 ms */
    c[0].latency[WH_METRICS_LATENCY_BOUNDS_N] = 1;   /* past 10 s */
    c[0].latency_sum_us = 12500000;
    c[0].replay_provider = "lmdb";
    c[0].replay_up = 1;
    c[0].replay_fill_known = 1;
    c[0].replay_live = 412;
    c[0].replay_capacity = 1342177;
    c[0].has_inbox = c[0].inbox_up = c[0].forwards = c[0].forward_known = 1;
    c[0].events = 100;
    c[0].quarantined = 2;
    c[0].backlog = 7;
    c[0].unqueued = 3;
    c[0].retrying = 1;
    c[0].dead = 4;
    c[0].lag_seconds = 2.5;
    c[0].attempts_known = 1;
    c[0].attempts.forwarded = 90;
    c[0].attempts.retried = 6;
    c[0].attempts.dead = 4;
    c[1].config = "/etc/wirehook/b.conf";
    c[1].counted = 1;
    c[1].answers = answers2;
    c[1].nanswers = 1;
    c[1].replay_provider = "redis";
    c[2].config = "/etc/wirehook/c.conf";
    c[2].has_inbox = c[2].forwards = 1;
    m->version = "1.2.0";
    m->counters_since = T0;
    m->configs = c;
    m->nconfigs = 3;
    return m;
}

static void test_render(void)
{
    wh_metrics_config c[3];
    wh_metrics *m = fixture(c);
    apr_size_t len = 0;
    const char *s = wh_metrics_render(wh_test_pool(), m, &len);

    CU_ASSERT_EQUAL(len, strlen(s));
    ASSERT_STR(structure(s) ? structure(s) : "ok", "ok");
    CU_ASSERT(has_line(s, "wirehook_build_info{version=\"1.2.0\"} 1"));
    CU_ASSERT(has_line(s, "wirehook_start_time_seconds 1800000000"));
    CU_ASSERT(has_line(s, "# TYPE wirehook_notifications_total counter"));
    CU_ASSERT(has_line(s, "wirehook_notifications_total{config=\"/etc/wirehook/a.conf\","
                          "code=\"accepted\"} 12"));
    CU_ASSERT(has_line(s, "wirehook_notifications_total{config=\"/etc/wirehook/a.conf\","
                          "code=\"signature_mismatch\"} 3"));
    CU_ASSERT(has_line(s, "wirehook_notifications_total{config=\"/etc/wirehook/a.conf\","
                          "code=\"other\"} 0"));
    CU_ASSERT(has_line(s, "wirehook_notifications_total{config=\"/etc/wirehook/b.conf\","
                          "code=\"accepted\"} 12"));
    CU_ASSERT_EQUAL(count_of(s, "wirehook_notifications_total{"), 5);
    CU_ASSERT(!contains(s, "c.conf\",code="));
    /* the inbox's results only where there is an inbox and counters */
    CU_ASSERT(has_line(s, "wirehook_inbox_stores_total{config=\"/etc/wirehook/a.conf\","
                          "result=\"stored\"} 5"));
    CU_ASSERT(has_line(s, "wirehook_inbox_stores_total{config=\"/etc/wirehook/a.conf\","
                          "result=\"unavailable\"} 0"));
    CU_ASSERT_EQUAL(count_of(s, "wirehook_inbox_stores_total{"), 3);
    /* the histogram: cumulative, +Inf is the count, the sum in seconds */
    CU_ASSERT(has_line(s, "# TYPE wirehook_verification_duration_seconds histogram"));
    CU_ASSERT(has_line(s, "wirehook_verification_duration_seconds_bucket{config="
                          "\"/etc/wirehook/a.conf\",le=\"0.0005\"} 10"));
    CU_ASSERT(has_line(s, "wirehook_verification_duration_seconds_bucket{config="
                          "\"/etc/wirehook/a.conf\",le=\"0.005\"} 10"));
    CU_ASSERT(has_line(s, "wirehook_verification_duration_seconds_bucket{config="
                          "\"/etc/wirehook/a.conf\",le=\"0.01\"} 12"));
    CU_ASSERT(has_line(s, "wirehook_verification_duration_seconds_bucket{config="
                          "\"/etc/wirehook/a.conf\",le=\"10\"} 12"));
    CU_ASSERT(has_line(s, "wirehook_verification_duration_seconds_bucket{config="
                          "\"/etc/wirehook/a.conf\",le=\"+Inf\"} 13"));
    CU_ASSERT(has_line(s, "wirehook_verification_duration_seconds_sum{config="
                          "\"/etc/wirehook/a.conf\"} 12.5"));
    CU_ASSERT(has_line(s, "wirehook_verification_duration_seconds_count{config="
                          "\"/etc/wirehook/a.conf\"} 13"));
    CU_ASSERT(has_line(s, "wirehook_verification_duration_seconds_count{config="
                          "\"/etc/wirehook/b.conf\"} 0"));
    CU_ASSERT_EQUAL(count_of(s, "wirehook_verification_duration_seconds_bucket{config="
                                "\"/etc/wirehook/b.conf\""), WH_METRICS_LATENCY_BUCKETS);
    /* the replay store: a fill when known, a limit when there is one */
    CU_ASSERT(has_line(s, "wirehook_replay_store_info{config=\"/etc/wirehook/a.conf\","
                          "provider=\"lmdb\"} 1"));
    CU_ASSERT(has_line(s, "wirehook_replay_store_info{config=\"/etc/wirehook/b.conf\","
                          "provider=\"redis\"} 1"));
    CU_ASSERT(has_line(s, "wirehook_replay_store_up{config=\"/etc/wirehook/b.conf\"} 0"));
    CU_ASSERT(has_line(s, "wirehook_replay_store_up{config=\"/etc/wirehook/a.conf\"} 1"));
    CU_ASSERT(has_line(s, "wirehook_replay_store_entries{config=\"/etc/wirehook/a.conf\"} 412"));
    CU_ASSERT(has_line(s, "wirehook_replay_store_entries_limit{config=\"/etc/wirehook/a.conf\"}"
                          " 1342177"));
    CU_ASSERT(!contains(s, "wirehook_replay_store_entries{config=\"/etc/wirehook/b.conf\""));
    /* the inbox: C could not be read, so it shows only that */
    CU_ASSERT(has_line(s, "wirehook_inbox_up{config=\"/etc/wirehook/a.conf\"} 1"));
    CU_ASSERT(has_line(s, "wirehook_inbox_up{config=\"/etc/wirehook/c.conf\"} 0"));
    CU_ASSERT(!contains(s, "wirehook_inbox_up{config=\"/etc/wirehook/b.conf\""));
    CU_ASSERT(has_line(s, "wirehook_inbox_events{config=\"/etc/wirehook/a.conf\"} 100"));
    CU_ASSERT(has_line(s, "wirehook_quarantine_notifications{config=\"/etc/wirehook/a.conf\"} 2"));
    CU_ASSERT_EQUAL(count_of(s, "c.conf"), 1);
    /* no purge recorded: no gauge at all */
    CU_ASSERT(!contains(s, "last_purge"));
    /* forwarding */
    CU_ASSERT(has_line(s, "wirehook_forward_backlog_events{config=\"/etc/wirehook/a.conf\"} 7"));
    CU_ASSERT(has_line(s, "wirehook_forward_unqueued_events{config=\"/etc/wirehook/a.conf\"} 3"));
    CU_ASSERT(has_line(s, "wirehook_forward_retrying_events{config=\"/etc/wirehook/a.conf\"} 1"));
    CU_ASSERT(has_line(s, "wirehook_forward_dead_letters{config=\"/etc/wirehook/a.conf\"} 4"));
    CU_ASSERT(has_line(s, "wirehook_forward_lag_seconds{config=\"/etc/wirehook/a.conf\"} 2.5"));
    CU_ASSERT(has_line(s, "wirehook_forward_attempts_total{config=\"/etc/wirehook/a.conf\","
                          "outcome=\"forwarded\"} 90"));
    CU_ASSERT(has_line(s, "wirehook_forward_attempts_total{config=\"/etc/wirehook/a.conf\","
                          "outcome=\"retried\"} 6"));
    CU_ASSERT(has_line(s, "wirehook_forward_attempts_total{config=\"/etc/wirehook/a.conf\","
                          "outcome=\"dead\"} 4"));
    /* each family once */
    CU_ASSERT_EQUAL(count_of(s, "# TYPE "), count_of(s, "# HELP "));
    CU_ASSERT_EQUAL(count_of(s, "# TYPE wirehook_forward_lag_seconds "), 1);
}

/* The hook for a purge (issue 35): a recorded one shows as a gauge. */
static void test_render_last_purge(void)
{
    wh_metrics_config c[3];
    wh_metrics *m = fixture(c);
    const char *s;

    c[0].last_purge = T0 - SEC(3600);
    s = wh_metrics_render(wh_test_pool(), m, NULL);
    CU_ASSERT(has_line(s, "# TYPE wirehook_inbox_last_purge_timestamp_seconds gauge"));
    CU_ASSERT(has_line(s, "wirehook_inbox_last_purge_timestamp_seconds{config="
                          "\"/etc/wirehook/a.conf\"} 1799996400"));
    CU_ASSERT_PTR_NULL(structure(s));
}

/* A host with no counters and no configuration (the CGI before its
 * configuration reads): the version alone, still a valid text. */
static void test_render_bare(void)
{
    wh_metrics m;
    const char *s;

    memset(&m, 0, sizeof(m));
    s = wh_metrics_render(wh_test_pool(), &m, NULL);
    ASSERT_STR(s, "# HELP wirehook_build_info wirehook's version (what wirehook --version "
                  "says), always 1.\n# TYPE wirehook_build_info gauge\n"
                  "wirehook_build_info{version=\"unknown\"} 1\n");
}

/* ---- the inbox's figures ------------------------------------------- */

static void store_at(fx *f, int i, const char *pay, apr_time_t at)
{
    const char *id = ix_nid(i);
    wh_facts fa = ix_facts(id, pay, "Sent");
    const char *b = ix_body(id, pay, "Sent");
    CU_ASSERT_EQUAL(wh_inbox_store(f->ib, wh_test_pool(), &fa, b, strlen(b), at, NULL),
                    WH_INBOX_STORED);
}

static wh_metrics_config read_at(fx *f, wh_inbox *ib, apr_time_t now)
{
    wh_metrics_config m;

    memset(&m, 0, sizeof(m));
    wh_metrics_read_inbox(wh_test_pool(), ib, f->cfg, now, &m);
    return m;
}

static void test_read_inbox(void)
{
    fx *f = ix_opened();
    wh_inbox *rib = ix_open_in(f, wh_test_pool());
    wh_verdict v;
    wh_metrics_config m;
    wh_fq *d = NULL;
    wh_fq_cycle_result c;
    apr_array_header_t *o;

    f->cfg->forward_url = NULL;
    m = read_at(f, rib, T0);
    CU_ASSERT_EQUAL(m.has_inbox, 1);
    CU_ASSERT_EQUAL(m.inbox_up, 1);
    CU_ASSERT_EQUAL(m.events, 0);
    CU_ASSERT_EQUAL(m.forwards, 0);
    CU_ASSERT_EQUAL(m.forward_known, 0);
    for (int i = 1; i <= 5; i++)
        store_at(f, i, i <= 3 ? "PA" : NULL, T0 + SEC(i));
    wh_verdict_init(&v, wh_test_pool());
    wh_verdict_fail(&v, 400, WH_CODE_INVALID_JSON, "bad");
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, "{", 1, T0), WH_INBOX_STORED);
    m = read_at(f, rib, T0 + SEC(10));
    CU_ASSERT_EQUAL(m.events, 5);
    CU_ASSERT_EQUAL(m.quarantined, 1);
    CU_ASSERT_EQUAL(m.last_purge, 0);

    /* forwarding, before any forwarder: everything waits since the first */
    f->cfg->forward_url = "http://127.0.0.1:1/hook";
    m = read_at(f, rib, T0 + SEC(10));
    CU_ASSERT_EQUAL(m.forwards, 1);
    CU_ASSERT_EQUAL(m.forward_known, 1);
    CU_ASSERT_EQUAL(m.backlog, 5);
    CU_ASSERT_EQUAL(m.unqueued, 5);
    CU_ASSERT_EQUAL(m.dead, 0);
    CU_ASSERT_DOUBLE_EQUAL(m.lag_seconds, 9.0, 1e-9);
    CU_ASSERT_EQUAL(m.attempts_known, 1);
    CU_ASSERT_EQUAL(m.attempts.forwarded, 0);

    /* a forwarder (a connection of its own, as its process has) takes
     * them in: PA's first and the two without payment leased; one
     * forwarded, one dead, one retried */
    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(wh_test_pool(), ix_open_in(f, wh_test_pool()), f->cfg,
                                        "me", &d));
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), NULL, 10, 40000, T0 + SEC(11), &c), 0);
    CU_ASSERT_EQUAL_FATAL(c.leases->nelts, 3);
    o = apr_array_make(wh_test_pool(), 3, sizeof(wh_fq_outcome));
    for (int i = 0; i < 3; i++) {
        const wh_fq_lease *l = &APR_ARRAY_IDX(c.leases, i, wh_fq_lease);
        wh_fq_outcome *x = apr_array_push(o);
        memset(x, 0, sizeof(*x));
        x->event_id = l->ev.id;
        x->attempt = l->ev.attempt;
        x->state = i == 0 ? WH_FQ_FORWARDED : i == 1 ? WH_FQ_DEAD : WH_FQ_READY;
        x->next_at = T0 + SEC(100);
        x->http_status = i == 0 ? 200 : 500;
        x->answer = "HTTP";
        x->reason = i == 1 ? "given up" : NULL;
        x->started_at = T0 + SEC(11);
        x->duration_ms = 3;
    }
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), o, 0, 40000, T0 + SEC(12), &c), 0);
    m = read_at(f, rib, T0 + SEC(20));
    CU_ASSERT_EQUAL(m.inbox_up, 1);
    CU_ASSERT_EQUAL(m.forward_known, 1);
    CU_ASSERT_EQUAL(m.unqueued, 0);
    CU_ASSERT_EQUAL(m.dead, 1);
    CU_ASSERT_EQUAL(m.retrying, 1);
    CU_ASSERT_EQUAL(m.backlog, 3);
    CU_ASSERT_EQUAL(m.attempts_known, 1);
    CU_ASSERT_EQUAL(m.attempts.forwarded, 1);
    CU_ASSERT_EQUAL(m.attempts.retried, 1);
    CU_ASSERT_EQUAL(m.attempts.dead, 1);
    CU_ASSERT(m.lag_seconds > 0.0);

    /* the forwarder stops; newer events are not taken in: the lag is the
     * oldest of them when the queue has none older */
    CU_ASSERT_EQUAL(ix_exec(f, "UPDATE wh_delivery SET state = 3 WHERE state < 3"), 0);
    store_at(f, 6, NULL, T0 + SEC(30));
    store_at(f, 7, NULL, T0 + SEC(31));
    m = read_at(f, rib, T0 + SEC(40));
    CU_ASSERT_EQUAL(m.unqueued, 2);
    CU_ASSERT_EQUAL(m.backlog, 2);
    CU_ASSERT_DOUBLE_EQUAL(m.lag_seconds, 10.0, 1e-9);
}

/* A purge recorded in the inbox is the last-purge gauge's value. */
static void test_read_last_purge(void)
{
    fx *f = ix_opened();
    wh_inbox *rib = ix_open_in(f, wh_test_pool());
    wh_purge_opts o;
    wh_purge_counts n;
    wh_metrics_config m;

    f->cfg->forward_url = NULL;
    for (int i = 1; i <= 3; i++)
        store_at(f, i, NULL, T0 + SEC(i));
    m = read_at(f, rib, T0 + SEC(10));
    CU_ASSERT_EQUAL(m.last_purge, 0);
    memset(&o, 0, sizeof(o));
    o.now = T0 + SEC(20);
    o.dry_run = 1;
    CU_ASSERT_EQUAL(wh_inbox_purge(f->ib, wh_test_pool(), f->cfg, &o, &n), 0);
    m = read_at(f, rib, T0 + SEC(30));
    CU_ASSERT_EQUAL(m.last_purge, 0);          /* a dry run records nothing */
    o.dry_run = 0;
    CU_ASSERT_EQUAL(wh_inbox_purge(f->ib, wh_test_pool(), f->cfg, &o, &n), 0);
    m = read_at(f, rib, T0 + SEC(30));
    CU_ASSERT_EQUAL(m.inbox_up, 1);
    CU_ASSERT(m.last_purge > 0);
}

/* No inbox to read (it could not be opened): only that it is down. */
static void test_read_inbox_down(void)
{
    fx *f = ix_opened();
    wh_metrics_config m;

    f->cfg->forward_url = "http://127.0.0.1:1/hook";
    m = read_at(f, NULL, T0);
    CU_ASSERT_EQUAL(m.has_inbox, 1);
    CU_ASSERT_EQUAL(m.inbox_up, 0);
    CU_ASSERT_EQUAL(m.forwards, 1);
    CU_ASSERT_EQUAL(m.forward_known, 0);
    f->cfg->inbox_params = NULL;
    m = read_at(f, NULL, T0);
    CU_ASSERT_EQUAL(m.has_inbox, 0);
    CU_ASSERT_EQUAL(m.forwards, 0);
}

static const wh_test_case cases[] = {
    { "text format: escaping", test_expo_escaping },
    { "text format: numbers", test_expo_numbers },
    { "text format: a long text", test_expo_grows },
    { "latency buckets", test_latency_buckets },
    { "every family, for the configurations that have it", test_render },
    { "a recorded purge shows", test_render_last_purge },
    { "the last purge is read from the inbox", test_read_last_purge },
    { "no configuration: the version alone", test_render_bare },
    { "the inbox's and the forwarder's figures", test_read_inbox },
    { "an inbox that cannot be read", test_read_inbox_down },
    { NULL, NULL }
};

WH_TEST_SUITE(metrics, cases)
