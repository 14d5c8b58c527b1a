/* wirehook forward's pure parts: the Forward* keys and their parsers,
 * answer classification, backoff and jitter bounds, Retry-After, the
 * give-up rules, and the request an event becomes (headers, signature). */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "forward/wh_forward.h"
#include "forward/wh_forward_keys.h"
#include "verify/wh_duration.h"
#include "verify/wh_signature.h"

#include <apr_strings.h>
#include <apr_date.h>
#include <string.h>

static apr_pool_t *P(void)
{
    return wh_test_pool();
}

/* ---- durations ----------------------------------------------------- */

static apr_int64_t dur(const char *s)
{
    apr_int64_t v = -1;
    const char *err = wh_parse_duration_ms(P(), s, 0, APR_INT64_C(30) * 86400000, &v);
    return err ? -1 : v;
}

static void test_duration_units(void)
{
    CU_ASSERT_EQUAL(dur("250ms"), 250);
    CU_ASSERT_EQUAL(dur("30s"), 30000);
    CU_ASSERT_EQUAL(dur("30"), 30000);          /* bare digits: seconds */
    CU_ASSERT_EQUAL(dur("15m"), 900000);
    CU_ASSERT_EQUAL(dur("2h"), 7200000);
    CU_ASSERT_EQUAL(dur("1d"), 86400000);
    CU_ASSERT_EQUAL(dur("0"), 0);
    CU_ASSERT_EQUAL(dur("007s"), 7000);
}

static void test_duration_garbage(void)
{
    const char *bad[] = { "", "s", "-1", "+5", "1.5s", "10 s", " 10", "10S",
                          "10sec", "1e3", "0x10", "10ms5", "1000000000000",
                          "99999999999d", NULL };
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_EQUAL(dur(bad[i]), -1);
    CU_ASSERT_EQUAL(dur(NULL), -1);
}

static void test_duration_bounds_in_message(void)
{
    apr_int64_t v = 7;
    const char *err = wh_parse_duration_ms(P(), "5ms", 10, 3600000, &v);
    CU_ASSERT(contains(err, "from 10ms to 1h"));
    CU_ASSERT(!contains(err, "5ms"));           /* the value is never repeated */
    CU_ASSERT_EQUAL(v, 7);                     /* untouched on error */
    CU_ASSERT_PTR_NULL(wh_parse_duration_ms(P(), "10ms", 10, 3600000, &v));
    CU_ASSERT_PTR_NULL(wh_parse_duration_ms(P(), "1h", 10, 3600000, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_duration_ms(P(), "61m", 10, 3600000, &v));
    ASSERT_STR(wh_format_duration_us(P(), 86400000 * APR_INT64_C(1000)), "1d");
    ASSERT_STR(wh_format_duration_us(P(), 90000 * APR_INT64_C(1000)), "90s");
    ASSERT_STR(wh_format_duration_us(P(), 1500 * APR_INT64_C(1000)), "1500ms");
}

static void test_forward_url(void)
{
    const char *u = NULL;
    CU_ASSERT_PTR_NULL(wh_parse_forward_url(P(), "http://127.0.0.1:8080/hook?x=1", &u));
    ASSERT_STR(u, "http://127.0.0.1:8080/hook?x=1");
    CU_ASSERT_PTR_NULL(wh_parse_forward_url(P(), "https://app.example/wires", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "/hook", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "ftp://h/x", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http://h/x#frag", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http://h/a b", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http:///nohost", &u));
    /* the URL signed must be the one the client sends */
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http://127.0.0.1:80/hook", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "https://app.example:443/w", &u));
    CU_ASSERT_PTR_NULL(wh_parse_forward_url(P(), "https://app.example:80/w", &u));
    CU_ASSERT_PTR_NULL(wh_parse_forward_url(P(), "http://app.example:443/w", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http://h/app/x/../hook", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http://h/./hook", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http://h/hook/..", &u));
    CU_ASSERT_PTR_NULL(wh_parse_forward_url(P(), "http://h/.well-known/x..y/...", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http://h", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http://h?x=1", &u));
    CU_ASSERT_PTR_NULL(wh_parse_forward_url(P(), "http://h/", &u));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_forward_url(P(), "http://user:pw@h/x", &u));
    CU_ASSERT(!strstr(wh_parse_forward_url(P(), "http://user:pw@h/x", &u), "pw"));
}

/* ---- the keys ------------------------------------------------------ */

static const char *set1(wh_config *cfg, const char *k, const char *v)
{
    return wh_config_set(P(), cfg, k, v, 0);
}

static void test_keys_defaults(void)
{
    wh_config *cfg = wh_config_create(P());
    CU_ASSERT_PTR_NULL(cfg->forward_url);
    CU_ASSERT_PTR_NULL(cfg->forward_secret_file);
    CU_ASSERT_PTR_NULL(cfg->forward_ca_file);
    CU_ASSERT_EQUAL(cfg->forward_max_attempts, 100);
    CU_ASSERT_EQUAL(cfg->forward_max_age, APR_INT64_C(86400000));
    CU_ASSERT_EQUAL(cfg->forward_timeout, 30000);
    CU_ASSERT_EQUAL(cfg->forward_concurrency, 32);
    CU_ASSERT_EQUAL(cfg->forward_backoff_min, 1000);
    CU_ASSERT_EQUAL(cfg->forward_backoff_max, 900000);
}

static void test_keys_values(void)
{
    wh_config *cfg = wh_config_create(P());
    CU_ASSERT_PTR_NULL(set1(cfg, "forwardurl", "http://127.0.0.1:9/x"));
    CU_ASSERT_PTR_NULL(set1(cfg, "ForwardMaxAttempts", "3"));
    CU_ASSERT_PTR_NULL(set1(cfg, "ForwardMaxAge", "2h"));
    CU_ASSERT_PTR_NULL(set1(cfg, "ForwardTimeout", "1500ms"));
    CU_ASSERT_PTR_NULL(set1(cfg, "ForwardConcurrency", "1000"));
    CU_ASSERT_PTR_NULL(set1(cfg, "ForwardBackoffMin", "200ms"));
    CU_ASSERT_PTR_NULL(set1(cfg, "ForwardBackoffMax", "2s"));
    CU_ASSERT_PTR_NULL(set1(cfg, "ForwardCAFile", "/etc/ssl/certs/ca.pem"));
    ASSERT_STR(cfg->forward_url, "http://127.0.0.1:9/x");
    CU_ASSERT_EQUAL(cfg->forward_max_attempts, 3);
    CU_ASSERT_EQUAL(cfg->forward_max_age, 7200000);
    CU_ASSERT_EQUAL(cfg->forward_timeout, 1500);
    CU_ASSERT_EQUAL(cfg->forward_concurrency, 1000);
    CU_ASSERT_EQUAL(cfg->forward_backoff_min, 200);
    CU_ASSERT_EQUAL(cfg->forward_backoff_max, 2000);
    ASSERT_STR(cfg->forward_ca_file, "/etc/ssl/certs/ca.pem");
}

static void test_keys_ranges(void)
{
    struct { const char *k, *v; } bad[] = {
        { "ForwardMaxAttempts", "0" }, { "ForwardMaxAttempts", "10001" },
        { "ForwardMaxAge", "999ms" }, { "ForwardMaxAge", "31d" },
        { "ForwardTimeout", "99ms" }, { "ForwardTimeout", "11m" },
        { "ForwardConcurrency", "0" }, { "ForwardConcurrency", "1001" },
        { "ForwardBackoffMin", "9ms" }, { "ForwardBackoffMin", "2h" },
        { "ForwardBackoffMax", "2d" }, { "ForwardUrl", "/relative" },
        { NULL, NULL }
    };
    for (int i = 0; bad[i].k; i++) {
        const char *err = set1(wh_config_create(P()), bad[i].k, bad[i].v);
        CU_ASSERT(contains(err, bad[i].k));
        CU_ASSERT(!contains(err, "unknown key"));
    }
}

static const char *finalize_with(const char *extra)
{
    const char *secret = wh_test_tmpfile("s1\n", 0600);
    const char *users = wh_test_tmpfile("bob:{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=\n", 0600);
    const char *file = wh_test_tmpfile(
        apr_psprintf(P(), "SigningSecretFile %s\nBasicAuthFile %s\n%s", secret,
                     users, extra), 0600);
    wh_config *cfg;
    return wh_config_load(P(), file, &cfg);
}

static void test_keys_cross_rules(void)
{
    const char *fs = wh_test_tmpfile("forward-secret\n", 0600);
    CU_ASSERT_PTR_NULL(finalize_with(""));
    CU_ASSERT_PTR_NULL(finalize_with(apr_psprintf(
        P(), "ForwardUrl http://127.0.0.1:1/x\nForwardSecretFile %s\n", fs)));
    CU_ASSERT(contains(finalize_with("ForwardUrl http://127.0.0.1:1/x\n"),
                       "ForwardUrl needs ForwardSecretFile"));
    CU_ASSERT(contains(finalize_with(apr_psprintf(P(), "ForwardSecretFile %s\n", fs)),
                       "without ForwardUrl"));
    CU_ASSERT(contains(finalize_with("ForwardBackoffMin 5s\nForwardBackoffMax 1s\n"),
                       "ForwardBackoffMin must not exceed ForwardBackoffMax"));
    /* the module and the CGI never load the forwarding secret: a file they
     * cannot read is no error for them */
    CU_ASSERT_PTR_NULL(finalize_with(
        "ForwardUrl http://127.0.0.1:1/x\nForwardSecretFile /nonexistent/fs\n"));
}

static void test_secret_load(void)
{
    wh_config *cfg = wh_config_create(P());
    const wh_secret *s = NULL;
    CU_ASSERT(contains(wh_forward_secret_load(P(), cfg, &s), "not configured"));
    cfg->forward_url = "http://127.0.0.1:1/x";
    cfg->forward_secret_file = wh_test_tmpfile("first\nsecond\n", 0600);
    CU_ASSERT_PTR_NULL(wh_forward_secret_load(P(), cfg, &s));
    CU_ASSERT_EQUAL(s->len, 5);
    CU_ASSERT(memcmp(s->key, "first", 5) == 0);
    cfg->forward_secret_file = "/nonexistent/secret";
    CU_ASSERT_PTR_NOT_NULL(wh_forward_secret_load(P(), cfg, &s));
}

/* ---- classification ------------------------------------------------ */

static void test_classify(void)
{
    CU_ASSERT_EQUAL(wh_forward_classify(1, 200), WH_FWD_FORWARDED);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 201), WH_FWD_FORWARDED);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 204), WH_FWD_FORWARDED);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 299), WH_FWD_FORWARDED);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 408), WH_FWD_RETRY);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 429), WH_FWD_RETRY);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 500), WH_FWD_RETRY);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 502), WH_FWD_RETRY);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 503), WH_FWD_RETRY);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 599), WH_FWD_RETRY);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 301), WH_FWD_RETRY);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 100), WH_FWD_RETRY);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 400), WH_FWD_REJECTED);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 401), WH_FWD_REJECTED);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 404), WH_FWD_REJECTED);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 409), WH_FWD_REJECTED);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 422), WH_FWD_REJECTED);
    CU_ASSERT_EQUAL(wh_forward_classify(1, 499), WH_FWD_REJECTED);
    /* no answer at all: refused, reset, timed out */
    CU_ASSERT_EQUAL(wh_forward_classify(0, 0), WH_FWD_RETRY);
    CU_ASSERT_EQUAL(wh_forward_classify(0, 200), WH_FWD_RETRY);
}

/* ---- backoff ------------------------------------------------------- */

static void test_backoff_bounds(void)
{
    const apr_uint64_t rnds[] = { 0, 1, 7, 12345, APR_UINT64_C(0xffffffffffffffff),
                                  APR_UINT64_C(0x8000000000000000) };
    for (int attempt = 1; attempt <= 80; attempt++) {
        apr_int64_t d = 1000;
        for (int i = 1; i < attempt && d < 900000; i++)
            d *= 2;
        if (d > 900000)
            d = 900000;
        for (size_t r = 0; r < sizeof(rnds) / sizeof(rnds[0]); r++) {
            apr_int64_t got = wh_forward_backoff_ms(attempt, 1000, 900000, rnds[r]);
            CU_ASSERT(got >= d / 2);
            CU_ASSERT(got <= d);
        }
    }
}

static void test_backoff_doubles_then_caps(void)
{
    /* rnd 0 gives the lower bound d/2 exactly */
    CU_ASSERT_EQUAL(wh_forward_backoff_ms(1, 200, 2000, 0), 100);
    CU_ASSERT_EQUAL(wh_forward_backoff_ms(2, 200, 2000, 0), 200);
    CU_ASSERT_EQUAL(wh_forward_backoff_ms(3, 200, 2000, 0), 400);
    CU_ASSERT_EQUAL(wh_forward_backoff_ms(4, 200, 2000, 0), 800);
    CU_ASSERT_EQUAL(wh_forward_backoff_ms(5, 200, 2000, 0), 1000);
    CU_ASSERT_EQUAL(wh_forward_backoff_ms(1000000, 200, 2000, 0), 1000);
    /* and the upper bound d */
    CU_ASSERT_EQUAL(wh_forward_backoff_ms(3, 200, 2000, 400), 800);
    CU_ASSERT_EQUAL(wh_forward_backoff_ms(9, 200, 2000, 1000), 2000);
    /* degenerate settings stay sane */
    CU_ASSERT(wh_forward_backoff_ms(1, 0, 0, 99) >= 0);
    CU_ASSERT(wh_forward_backoff_ms(64, APR_INT64_C(86400000), APR_INT64_C(86400000), 5) <=
              APR_INT64_C(86400000));
}

static void test_backoff_jitter_spreads(void)
{
    /* many random values land on many different delays */
    apr_int64_t seen_lo = APR_INT64_MAX, seen_hi = 0;
    apr_uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 1000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        apr_int64_t d = wh_forward_backoff_ms(4, 1000, 900000, x);
        if (d < seen_lo) seen_lo = d;
        if (d > seen_hi) seen_hi = d;
    }
    CU_ASSERT(seen_lo < 4400);
    CU_ASSERT(seen_hi > 7600);
}

/* ---- Retry-After --------------------------------------------------- */

static void test_retry_after_seconds(void)
{
    apr_int64_t d = -1;
    apr_time_t now = apr_time_from_sec(1800000000);
    CU_ASSERT_EQUAL(wh_forward_retry_after("120", now, &d), 0);
    CU_ASSERT_EQUAL(d, 120000);
    CU_ASSERT_EQUAL(wh_forward_retry_after("0", now, &d), 0);
    CU_ASSERT_EQUAL(d, 0);
    CU_ASSERT_EQUAL(wh_forward_retry_after(" 5 ", now, &d), 0);
    CU_ASSERT_EQUAL(d, 5000);
    CU_ASSERT_EQUAL(wh_forward_retry_after("99999999999999999999999", now, &d), 0);
    CU_ASSERT_EQUAL(d, (apr_int64_t)WH_FWD_RETRY_AFTER_MAX_S * 1000);
}

static void test_retry_after_dates(void)
{
    apr_int64_t d = -1;
    apr_time_t now = apr_date_parse_http("Sun, 06 Nov 1994 08:49:07 GMT");
    CU_ASSERT_EQUAL(wh_forward_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now, &d), 0);
    CU_ASSERT_EQUAL(d, 30000);
    CU_ASSERT_EQUAL(wh_forward_retry_after("Sunday, 06-Nov-94 08:50:07 GMT", now, &d), 0);
    CU_ASSERT_EQUAL(d, 60000);                 /* RFC 850 form */
    CU_ASSERT_EQUAL(wh_forward_retry_after("Sun Nov  6 08:49:17 1994", now, &d), 0);
    CU_ASSERT_EQUAL(d, 10000);                 /* asctime form */
    CU_ASSERT_EQUAL(wh_forward_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now, &d), 0);
    CU_ASSERT_EQUAL(d, 0);                     /* in the past: now */
    CU_ASSERT_EQUAL(wh_forward_retry_after("Sun, 06 Nov 2094 08:00:00 GMT", now, &d), 0);
    CU_ASSERT_EQUAL(d, (apr_int64_t)WH_FWD_RETRY_AFTER_MAX_S * 1000);
}

static void test_retry_after_garbage(void)
{
    const char *bad[] = { "", "soon", "-5", "5s", "1.5", "12 34", "0x10",
                          "Sun, 99 Nov 1994 08:49:37 GMT", "tomorrow at noon", NULL };
    for (int i = 0; bad[i]; i++) {
        apr_int64_t d = 4242;
        CU_ASSERT_EQUAL(wh_forward_retry_after(bad[i], apr_time_now(), &d), -1);
        CU_ASSERT_EQUAL(d, 4242);
    }
    CU_ASSERT_EQUAL(wh_forward_retry_after(NULL, apr_time_now(), NULL), -1);
}

/* ---- give-up rules ------------------------------------------------- */

static wh_config *policy_cfg(void)
{
    wh_config *cfg = wh_config_create(P());
    cfg->forward_max_attempts = 5;
    cfg->forward_max_age = 60000;
    cfg->forward_backoff_min = 1000;
    cfg->forward_backoff_max = 8000;
    return cfg;
}

static void test_plan_rejected_is_dead(void)
{
    wh_fwd_plan pl;
    apr_time_t now = apr_time_now();
    wh_forward_plan(P(), policy_cfg(), WH_FWD_REJECTED, 1, now, now, -1, 0, &pl);
    CU_ASSERT_EQUAL(pl.dead, 1);
    CU_ASSERT(contains(pl.reason, "rejected"));
}

static void test_plan_retry_schedule(void)
{
    wh_fwd_plan pl;
    apr_time_t t0 = apr_time_from_sec(1800000000);
    wh_forward_plan(P(), policy_cfg(), WH_FWD_RETRY, 1, t0, t0, -1, 0, &pl);
    CU_ASSERT_EQUAL(pl.dead, 0);
    CU_ASSERT_EQUAL(pl.next_at, t0 + apr_time_from_msec(500));
    wh_forward_plan(P(), policy_cfg(), WH_FWD_RETRY, 3, t0, t0, -1, 0, &pl);
    CU_ASSERT_EQUAL(pl.next_at, t0 + apr_time_from_msec(2000));
    /* Retry-After longer than the backoff wins; shorter does not */
    wh_forward_plan(P(), policy_cfg(), WH_FWD_RETRY, 1, t0, t0, 7000, 0, &pl);
    CU_ASSERT_EQUAL(pl.next_at, t0 + apr_time_from_msec(7000));
    wh_forward_plan(P(), policy_cfg(), WH_FWD_RETRY, 3, t0, t0, 10, 0, &pl);
    CU_ASSERT_EQUAL(pl.next_at, t0 + apr_time_from_msec(2000));
}

static void test_plan_max_attempts(void)
{
    wh_fwd_plan pl;
    apr_time_t t0 = apr_time_from_sec(1800000000);
    wh_forward_plan(P(), policy_cfg(), WH_FWD_RETRY, 4, t0, t0, -1, 0, &pl);
    CU_ASSERT_EQUAL(pl.dead, 0);
    wh_forward_plan(P(), policy_cfg(), WH_FWD_RETRY, 5, t0, t0, -1, 0, &pl);
    CU_ASSERT_EQUAL(pl.dead, 1);
    CU_ASSERT(contains(pl.reason, "5 attempts"));
    CU_ASSERT(contains(pl.reason, "ForwardMaxAttempts"));
}

static void test_plan_max_age(void)
{
    wh_fwd_plan pl;
    apr_time_t t0 = apr_time_from_sec(1800000000);
    /* 59 s after the first attempt, the next (2 s later) would start past
     * 60 s */
    wh_forward_plan(P(), policy_cfg(), WH_FWD_RETRY, 3, t0,
                    t0 + apr_time_from_sec(59), -1, 0, &pl);
    CU_ASSERT_EQUAL(pl.dead, 1);
    CU_ASSERT(contains(pl.reason, "ForwardMaxAge"));
    wh_forward_plan(P(), policy_cfg(), WH_FWD_RETRY, 2, t0,
                    t0 + apr_time_from_sec(50), -1, 0, &pl);
    CU_ASSERT_EQUAL(pl.dead, 0);
    /* a Retry-After past the age limit gives up now, not after it */
    wh_forward_plan(P(), policy_cfg(), WH_FWD_RETRY, 1, t0, t0, 3600000, 0, &pl);
    CU_ASSERT_EQUAL(pl.dead, 1);
}

static void test_lease_covers_a_request(void)
{
    wh_config *cfg = wh_config_create(P());
    cfg->forward_timeout = 5000;
    CU_ASSERT_EQUAL(wh_forward_lease_ms(cfg), 10000);
    cfg->forward_timeout = 30000;
    CU_ASSERT_EQUAL(wh_forward_lease_ms(cfg), 40000);
    cfg->forward_timeout = 100;
    CU_ASSERT_EQUAL(wh_forward_lease_ms(cfg), 1100);
    cfg->forward_timeout = 600000;
    CU_ASSERT_EQUAL(wh_forward_lease_ms(cfg), 610000);
}

/* ---- the request --------------------------------------------------- */

static const char *header(const apr_array_header_t *h, const char *name)
{
    apr_size_t n = strlen(name);
    for (int i = 0; i < h->nelts; i++) {
        const char *l = APR_ARRAY_IDX(h, i, const char *);
        if (strncasecmp(l, name, n) == 0 && l[n] == ':')
            return l + n + 2;
    }
    return NULL;
}

static wh_fwd_event sample_event(void)
{
    wh_fwd_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.id = 7;
    ev.notification_id = "8cefee42-cb39-4479-b7fd-b8a358aeb002";
    ev.event_type = "wire.status";
    ev.event_time = "2026-11-22T14:05:09Z";
    ev.payment_id = "WP-2026-000481";
    ev.status = "Complete";
    ev.body = "{\"a\":1}\n";
    ev.body_len = 8;
    ev.attempt = 3;
    return ev;
}

static void test_headers_facts_and_key(void)
{
    wh_config *cfg = wh_config_create(P());
    wh_secret s = { (const unsigned char *)"fwd-secret", 10, NULL };
    wh_fwd_event ev = sample_event();
    apr_array_header_t *h;

    cfg->forward_url = "http://127.0.0.1:8080/app";
    h = wh_forward_headers(P(), cfg, &s, &ev, apr_time_from_sec(1800000000));
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    ASSERT_STR(header(h, "Content-Type"), "application/json");
    ASSERT_STR(header(h, "Idempotency-Key"), ev.notification_id);
    ASSERT_STR(header(h, "Wirehook-Verified"), "1");
    ASSERT_STR(header(h, "Wirehook-Notification-Id"), ev.notification_id);
    ASSERT_STR(header(h, "Wirehook-Event-Type"), "wire.status");
    ASSERT_STR(header(h, "Wirehook-Event-Time"), "2026-11-22T14:05:09Z");
    ASSERT_STR(header(h, "Wirehook-Payment-Id"), "WP-2026-000481");
    ASSERT_STR(header(h, "Wirehook-Status"), "Complete");
    ASSERT_STR(header(h, "Wirehook-Status-Known"), "1");
    ASSERT_STR(header(h, "Wirehook-Attempt"), "3");
    ASSERT_STR(header(h, "X-Timestamp"), "1800000000");
    ev.status = "Processed";
    ev.payment_id = NULL;
    h = wh_forward_headers(P(), cfg, &s, &ev, apr_time_from_sec(1800000000));
    ASSERT_STR(header(h, "Wirehook-Status-Known"), "0");
    CU_ASSERT_PTR_NULL(header(h, "Wirehook-Payment-Id"));
}

static void test_headers_signature_verifies(void)
{
    wh_config *cfg = wh_config_create(P());
    wh_secret s = { (const unsigned char *)"fwd-secret", 10, NULL };
    apr_array_header_t *secrets = apr_array_make(P(), 1, sizeof(wh_secret));
    wh_fwd_event ev = sample_event();
    unsigned char given[WH_SIG_RAW_LEN];
    apr_array_header_t *h;

    APR_ARRAY_PUSH(secrets, wh_secret) = s;
    cfg->forward_url = "https://app.example/wires?x=1";
    cfg->timestamp_header = "X-Ts";
    cfg->signature_header = "X-Sig";
    cfg->timestamp_unit = WH_TS_MILLISECONDS;
    h = wh_forward_headers(P(), cfg, &s, &ev, apr_time_from_msec(1800000000123LL));
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    ASSERT_STR(header(h, "X-Ts"), "1800000000123");
    CU_ASSERT_EQUAL_FATAL(wh_signature_decode(header(h, "X-Sig"), given), 0);
    /* the receiver's own check: POST + ForwardUrl + body + timestamp */
    CU_ASSERT_EQUAL(wh_signature_match(secrets, "POST", cfg->forward_url, ev.body,
                                       ev.body_len, "1800000000123", given), 0);
    CU_ASSERT_EQUAL(wh_signature_match(secrets, "POST", "https://app.example/wires",
                                       ev.body, ev.body_len, "1800000000123", given), -1);
    /* no URL or no secret: no request */
    cfg->forward_url = NULL;
    CU_ASSERT_PTR_NULL(wh_forward_headers(P(), cfg, &s, &ev, apr_time_now()));
}

static int is_hex(const char *s, apr_size_t n)
{
    return strlen(s) >= n && strspn(s, "0123456789abcdef") >= n;
}

/* W3C traceparent: 00-TRACE-SPAN-01, the trace the event's (from its
 * notificationId), a new span at each attempt. */
static void test_headers_traceparent(void)
{
    wh_config *cfg = wh_config_create(P());
    wh_secret s = { (const unsigned char *)"k", 1, NULL };
    wh_fwd_event ev = sample_event();
    const char *a, *b;

    cfg->forward_url = "http://127.0.0.1/";
    a = header(wh_forward_headers(P(), cfg, &s, &ev, apr_time_now()), "traceparent");
    ev.attempt = 4;
    b = header(wh_forward_headers(P(), cfg, &s, &ev, apr_time_now()), "traceparent");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(strlen(a), 55);
    CU_ASSERT(strncmp(a, "00-8cefee42cb394479b7fdb8a358aeb002-", 36) == 0);
    CU_ASSERT(is_hex(a + 36, 16));
    ASSERT_STR(a + 52, "-01");
    CU_ASSERT(strncmp(a, b, 36) == 0);               /* one trace per event */
    CU_ASSERT(strncmp(a + 36, b + 36, 16) != 0);      /* a span per attempt */
    CU_ASSERT(strncmp(a + 36, "0000000000000000", 16) != 0);
}

static void test_trace_id(void)
{
    const char *x, *y;

    ASSERT_STR(wh_forward_trace_id(P(), "8cefee42-cb39-4479-b7fd-b8a358aeb002"),
               "8cefee42cb394479b7fdb8a358aeb002");
    ASSERT_STR(wh_forward_trace_id(P(), "8CEFEE42-CB39-4479-B7FD-B8A358AEB002"),
               "8cefee42cb394479b7fdb8a358aeb002");
    /* not a UUID, or the nil one (no valid trace id): a digest, stable */
    x = wh_forward_trace_id(P(), "not-a-uuid");
    y = wh_forward_trace_id(P(), "00000000-0000-0000-0000-000000000000");
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    CU_ASSERT(strlen(x) == 32 && is_hex(x, 32));
    CU_ASSERT(strlen(y) == 32 && is_hex(y, 32));
    ASSERT_STR(wh_forward_trace_id(P(), "not-a-uuid"), x);
    CU_ASSERT(strcmp(x, y) != 0);
    CU_ASSERT(strcmp(y, "00000000000000000000000000000000") != 0);
    CU_ASSERT(strcmp(wh_forward_trace_id(P(), "8cefee42-cb39-4479-b7fd-b8a358aeb00"), x) != 0);
    CU_ASSERT(strcmp(wh_forward_trace_id(P(), "8cefee42xcb39-4479-b7fd-b8a358aeb002"),
                     "8cefee42cb394479b7fdb8a358aeb002") != 0);
    CU_ASSERT_PTR_NOT_NULL(wh_forward_trace_id(P(), NULL));
}

static void test_headers_never_split(void)
{
    wh_config *cfg = wh_config_create(P());
    wh_secret s = { (const unsigned char *)"k", 1, NULL };
    wh_fwd_event ev = sample_event();
    apr_array_header_t *h;

    cfg->forward_url = "http://127.0.0.1/";
    ev.payment_id = "WP\r\nX-Evil: 1";
    ev.status = "Com\tplete";
    h = wh_forward_headers(P(), cfg, &s, &ev, apr_time_now());
    ASSERT_STR(header(h, "Wirehook-Payment-Id"), "WP??X-Evil: 1");
    ASSERT_STR(header(h, "Wirehook-Status"), "Com?plete");
    for (int i = 0; i < h->nelts; i++)
        CU_ASSERT_PTR_NULL(strpbrk(APR_ARRAY_IDX(h, i, const char *), "\r\n"));
}

static const wh_test_case cases[] = {
    { "duration: units", test_duration_units },
    { "duration: garbage refused", test_duration_garbage },
    { "duration: bounds named, value not", test_duration_bounds_in_message },
    { "ForwardUrl: absolute http(s) only", test_forward_url },
    { "keys: defaults", test_keys_defaults },
    { "keys: values", test_keys_values },
    { "keys: ranges", test_keys_ranges },
    { "keys: cross-key rules", test_keys_cross_rules },
    { "ForwardSecretFile: first secret signs", test_secret_load },
    { "classify: 2xx, retryable, rejected", test_classify },
    { "backoff: within [d/2, d] for every attempt", test_backoff_bounds },
    { "backoff: doubles, then caps", test_backoff_doubles_then_caps },
    { "backoff: jitter spreads", test_backoff_jitter_spreads },
    { "Retry-After: delta-seconds", test_retry_after_seconds },
    { "Retry-After: HTTP-dates", test_retry_after_dates },
    { "Retry-After: garbage ignored", test_retry_after_garbage },
    { "plan: rejected is dead at once", test_plan_rejected_is_dead },
    { "plan: backoff and Retry-After", test_plan_retry_schedule },
    { "plan: ForwardMaxAttempts", test_plan_max_attempts },
    { "plan: ForwardMaxAge", test_plan_max_age },
    { "lease outlasts a request", test_lease_covers_a_request },
    { "headers: facts, idempotency key", test_headers_facts_and_key },
    { "headers: signature verifies as the bank's", test_headers_signature_verifies },
    { "headers: a fact never splits a header", test_headers_never_split },
    { "headers: a W3C traceparent, a span per attempt", test_headers_traceparent },
    { "trace id: the notificationId's digits, else a digest", test_trace_id },
    { NULL, NULL }
};

WH_TEST_SUITE(forward, cases)
