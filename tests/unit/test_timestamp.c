/* Timestamp header: digits only, seconds or milliseconds, tolerance in
 * both directions. */
#include "wh_test.h"
#include "verify/wh_timestamp.h"

#define NOW_SEC 1700000000LL
#define NOW apr_time_from_sec(NOW_SEC)

static wh_ts_result check(const char *v, wh_ts_unit u)
{
    return wh_timestamp_check(v, u, 300, NOW, NULL);
}

static void test_parse_seconds_and_ms(void)
{
    apr_time_t t;
    CU_ASSERT_EQUAL(wh_timestamp_parse("1700000000", WH_TS_AUTO, &t), WH_TS_OK);
    CU_ASSERT_EQUAL(t, apr_time_from_sec(1700000000LL));
    CU_ASSERT_EQUAL(wh_timestamp_parse("1700000000123", WH_TS_AUTO, &t), WH_TS_OK);
    CU_ASSERT_EQUAL(t, apr_time_from_sec(1700000000LL) + 123000);
    /* 12 digits is still seconds in auto mode; 13 is milliseconds. */
    CU_ASSERT_EQUAL(wh_timestamp_parse("170000000000", WH_TS_AUTO, &t), WH_TS_OK);
    CU_ASSERT_EQUAL(t, apr_time_from_sec(170000000000LL));
}

static void test_explicit_units(void)
{
    apr_time_t t;
    CU_ASSERT_EQUAL(wh_timestamp_parse("1700000000123", WH_TS_SECONDS, &t), WH_TS_OK);
    CU_ASSERT_EQUAL(t, apr_time_from_sec(1700000000123LL));
    CU_ASSERT_EQUAL(wh_timestamp_parse("1700000000", WH_TS_MILLISECONDS, &t), WH_TS_OK);
    CU_ASSERT_EQUAL(t, 1700000000LL * 1000);
    CU_ASSERT_EQUAL(check("1700000000000", WH_TS_MILLISECONDS), WH_TS_OK);
    CU_ASSERT_EQUAL(check("1700000000", WH_TS_MILLISECONDS), WH_TS_EXPIRED);
    CU_ASSERT_EQUAL(check("1700000000000", WH_TS_SECONDS), WH_TS_FUTURE);
}

static void test_malformed(void)
{
    apr_time_t t;
    const char *bad[] = { "", " 1700000000", "1700000000 ", "+1700000000", "-1700000000",
                          "1700000000.5", "0x65", "17e8", "1,700,000,000", "１７", NULL };
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_EQUAL(wh_timestamp_parse(bad[i], WH_TS_AUTO, &t), WH_TS_MALFORMED);
    CU_ASSERT_EQUAL(wh_timestamp_parse(NULL, WH_TS_AUTO, &t), WH_TS_MALFORMED);
}

static void test_too_many_digits(void)
{
    apr_time_t t;
    CU_ASSERT_EQUAL(wh_timestamp_parse("99999999999999999999999", WH_TS_AUTO, &t), WH_TS_MALFORMED);
    CU_ASSERT_EQUAL(wh_timestamp_parse("9999999999999999999", WH_TS_AUTO, &t), WH_TS_MALFORMED);
    CU_ASSERT_EQUAL(wh_timestamp_parse("1000000000000000000", WH_TS_MILLISECONDS, &t),
                    WH_TS_MALFORMED);
}

/* 18 digits are well-formed in every unit: what microseconds cannot hold
 * is far in the future, not malformed. */
static void test_huge_values_are_future(void)
{
    apr_time_t t = 0;
    const wh_ts_unit units[] = { WH_TS_AUTO, WH_TS_SECONDS, WH_TS_MILLISECONDS };
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(wh_timestamp_parse("999999999999999999", units[i], &t), WH_TS_OK);
        CU_ASSERT_EQUAL(t, APR_INT64_MAX);
        CU_ASSERT_EQUAL(check("999999999999999999", units[i]), WH_TS_FUTURE);
    }
    /* milliseconds: the largest value that fits, and the first that does not */
    CU_ASSERT_EQUAL(wh_timestamp_parse("9223372036854775", WH_TS_MILLISECONDS, &t), WH_TS_OK);
    CU_ASSERT_EQUAL(t, 9223372036854775LL * 1000);
    CU_ASSERT_EQUAL(wh_timestamp_parse("9223372036854776", WH_TS_MILLISECONDS, &t), WH_TS_OK);
    CU_ASSERT_EQUAL(t, APR_INT64_MAX);
    CU_ASSERT_EQUAL(check("9223372036854776", WH_TS_MILLISECONDS), WH_TS_FUTURE);
    /* seconds: the same edge */
    CU_ASSERT_EQUAL(wh_timestamp_parse("9223372036854", WH_TS_SECONDS, &t), WH_TS_OK);
    CU_ASSERT_EQUAL(t, apr_time_from_sec(9223372036854LL));
    CU_ASSERT_EQUAL(wh_timestamp_parse("9223372036855", WH_TS_SECONDS, &t), WH_TS_OK);
    CU_ASSERT_EQUAL(t, APR_INT64_MAX);
    CU_ASSERT_EQUAL(check("999999999999999", WH_TS_AUTO), WH_TS_FUTURE);
}

static void test_tolerance_edges(void)
{
    CU_ASSERT_EQUAL(check("1700000000", WH_TS_AUTO), WH_TS_OK);
    CU_ASSERT_EQUAL(check("1699999700", WH_TS_AUTO), WH_TS_OK);      /* exactly 300 s old */
    CU_ASSERT_EQUAL(check("1699999699", WH_TS_AUTO), WH_TS_EXPIRED); /* 301 s */
    CU_ASSERT_EQUAL(check("1700000300", WH_TS_AUTO), WH_TS_OK);
    CU_ASSERT_EQUAL(check("1700000301", WH_TS_AUTO), WH_TS_FUTURE);
    CU_ASSERT_EQUAL(check("1699999700000", WH_TS_AUTO), WH_TS_OK);
    CU_ASSERT_EQUAL(check("1699999699999", WH_TS_AUTO), WH_TS_EXPIRED);
    CU_ASSERT_EQUAL(check("1700000300001", WH_TS_AUTO), WH_TS_FUTURE);
    CU_ASSERT_EQUAL(check("0", WH_TS_AUTO), WH_TS_EXPIRED);
}

static void test_skew_reported(void)
{
    apr_int64_t skew = 0;
    wh_timestamp_check("1699999000", WH_TS_AUTO, 300, NOW, &skew);
    CU_ASSERT_EQUAL(skew, -1000);
    wh_timestamp_check("1700000042", WH_TS_AUTO, 300, NOW, &skew);
    CU_ASSERT_EQUAL(skew, 42);
}

static const wh_test_case cases[] = {
    { "seconds and milliseconds", test_parse_seconds_and_ms },
    { "explicit units", test_explicit_units },
    { "malformed values", test_malformed },
    { "more than 18 digits is malformed", test_too_many_digits },
    { "18 digits beyond microseconds are in the future", test_huge_values_are_future },
    { "tolerance edges both ways", test_tolerance_edges },
    { "skew reported", test_skew_reported },
    { NULL, NULL }
};
WH_TEST_SUITE(timestamp, cases)
