/* Durations (wh_duration.h): the one syntax of every key that is a
 * duration, and each such key of the configuration file read through it. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "verify/wh_duration.h"

static apr_pool_t *P(void)
{
    return wh_test_pool();
}

/* seconds, bare digits seconds, 0..1d */
static const wh_duration_rule in_seconds = { WH_US_S, WH_US_S, 0, 86400 };

static apr_int64_t secs(const char *s)
{
    apr_int64_t v = -1;
    return wh_parse_duration(P(), s, &in_seconds, &v) ? -1 : v;
}

static void test_units(void)
{
    CU_ASSERT_EQUAL(secs("300"), 300);          /* bare: the key's old unit */
    CU_ASSERT_EQUAL(secs("300s"), 300);
    CU_ASSERT_EQUAL(secs("5m"), 300);
    CU_ASSERT_EQUAL(secs("2h"), 7200);
    CU_ASSERT_EQUAL(secs("1d"), 86400);
    CU_ASSERT_EQUAL(secs("2000ms"), 2);
    CU_ASSERT_EQUAL(secs("3000000us"), 3);
    CU_ASSERT_EQUAL(secs("0"), 0);
    CU_ASSERT_EQUAL(secs("0m"), 0);
    CU_ASSERT_EQUAL(secs("007s"), 7);
    CU_ASSERT_EQUAL(secs("0000000000000000000042"), 42);   /* zeros don't count */
}

static void test_garbage(void)
{
    const char *bad[] = { "", "s", "-1", "+5", "1.5s", "10 s", " 10", "10S",
                          "10sec", "1e3", "0x10", "10ms5", "5min", "m5",
                          "1000000000000", "99999999999999999999d", NULL };
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_EQUAL(secs(bad[i]), -1);
    CU_ASSERT_EQUAL(secs(NULL), -1);
}

/* A key kept in seconds takes no fraction of one: refused, not rounded. */
static void test_whole_units(void)
{
    apr_int64_t v = 9;
    const char *err = wh_parse_duration(P(), "1500ms", &in_seconds, &v);
    CU_ASSERT(contains(err, "in whole seconds"));
    CU_ASSERT_EQUAL(v, 9);
    CU_ASSERT_EQUAL(secs("999ms"), -1);
}

static void test_bounds_and_message(void)
{
    const wh_duration_rule r = { WH_US_S, WH_US_S, 1, 3600 };
    apr_int64_t v = 7;
    const char *err = wh_parse_duration(P(), "61m", &r, &v);
    CU_ASSERT(contains(err, "from 1s to 1h"));
    CU_ASSERT(contains(err, "us, ms, s, m, h, d"));
    CU_ASSERT(contains(err, "bare digits are seconds"));
    CU_ASSERT(!contains(err, "61m"));           /* the value is never repeated */
    CU_ASSERT_EQUAL(v, 7);
    CU_ASSERT_PTR_NOT_NULL(wh_parse_duration(P(), "0", &r, &v));
    CU_ASSERT_PTR_NULL(wh_parse_duration(P(), "60m", &r, &v));
    CU_ASSERT_EQUAL(v, 3600);
}

/* No multiplication wraps: the largest digits with the largest unit. */
static void test_no_overflow(void)
{
    const wh_duration_rule any = { 1, 1, 0, APR_INT64_MAX };
    apr_int64_t v = -1;
    CU_ASSERT_PTR_NULL(wh_parse_duration(P(), "106751991d", &any, &v));
    CU_ASSERT_EQUAL(v, APR_INT64_C(106751991) * 86400 * 1000000);
    CU_ASSERT_PTR_NOT_NULL(wh_parse_duration(P(), "106751992d", &any, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_duration(P(), "999999999999d", &any, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_duration(P(), "9999999999999us", &any, &v));
}

/* InboxBatchWait keeps microseconds for bare digits. */
static void test_microsecond_key(void)
{
    const wh_duration_rule us = { 1, 1, 0, 100000 };
    apr_int64_t v = -1;
    CU_ASSERT_PTR_NULL(wh_parse_duration(P(), "300", &us, &v));
    CU_ASSERT_EQUAL(v, 300);
    CU_ASSERT_PTR_NULL(wh_parse_duration(P(), "5ms", &us, &v));
    CU_ASSERT_EQUAL(v, 5000);
    CU_ASSERT(contains(wh_parse_duration(P(), "1s", &us, &v),
                       "bare digits are microseconds"));
}

static void test_format(void)
{
    ASSERT_STR(wh_format_duration_us(P(), 86400 * WH_US_S), "1d");
    ASSERT_STR(wh_format_duration_us(P(), 90 * WH_US_S), "90s");
    ASSERT_STR(wh_format_duration_us(P(), 1500 * WH_US_MS), "1500ms");
    ASSERT_STR(wh_format_duration_us(P(), 250), "250us");
    ASSERT_STR(wh_format_duration_us(P(), 0), "0s");
    ASSERT_STR(wh_format_duration_us(P(), 900000 * APR_INT64_C(1000)), "15m");
}

/* Every duration key of the file takes the same syntax: what was refused
 * ("TimestampTolerance 5m") reads as the Forward* keys' "5m" does. */
static wh_config *with(const char *key, const char *value)
{
    wh_config *c = wh_config_create(P());
    const char *err = wh_config_set(P(), c, key, value, 0);
    CU_ASSERT_PTR_NULL(err);
    return err ? NULL : c;
}

static void test_every_duration_key(void)
{
    wh_config *c;

    if ((c = with("TimestampTolerance", "5m")))
        CU_ASSERT_EQUAL(c->timestamp_tolerance, 300);
    if ((c = with("TimestampTolerance", "120")))
        CU_ASSERT_EQUAL(c->timestamp_tolerance, 120);
    if ((c = with("ReplayWindow", "1h")))
        CU_ASSERT_EQUAL(c->replay_window, 3600);
    if ((c = with("ReplayWindow", "7d")))
        CU_ASSERT_EQUAL(c->replay_window, 604800);
    if ((c = with("AuthCacheTTL", "2m")))
        CU_ASSERT_EQUAL(c->auth_cache_ttl, 120);
    if ((c = with("AuthCacheTTL", "0")))
        CU_ASSERT_EQUAL(c->auth_cache_ttl, 0);
    if ((c = with("InboxBatchWait", "2ms")))
        CU_ASSERT_EQUAL(c->inbox_batch_wait, 2000);
    if ((c = with("InboxBatchWait", "250")))
        CU_ASSERT_EQUAL(c->inbox_batch_wait, 250);
    if ((c = with("ForwardTimeout", "5m")))
        CU_ASSERT_EQUAL(c->forward_timeout, 300000);
    if ((c = with("ForwardBackoffMin", "2")))
        CU_ASSERT_EQUAL(c->forward_backoff_min, 2000);
    c = wh_config_create(P());
    CU_ASSERT(contains(wh_config_set(P(), c, "TimestampTolerance", "2d", 0),
                       "TimestampTolerance: must be a duration from 1s to 1d"));
    CU_ASSERT(contains(wh_config_set(P(), c, "ReplayWindow", "8d", 0),
                       "ReplayWindow: must be a duration from 1s to 7d"));
    CU_ASSERT(contains(wh_config_set(P(), c, "AuthCacheTTL", "1500ms", 0),
                       "in whole seconds"));
}

static const wh_test_case cases[] = {
    {"units", test_units},
    {"garbage refused", test_garbage},
    {"whole units of the key", test_whole_units},
    {"bounds named, value not", test_bounds_and_message},
    {"no overflow", test_no_overflow},
    {"microsecond key", test_microsecond_key},
    {"format", test_format},
    {"every duration key of the file", test_every_duration_key},
    {NULL, NULL}};

WH_TEST_SUITE(duration, cases)
