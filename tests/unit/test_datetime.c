/* wh_datetime_parse: eventDateTime as microseconds since the epoch, the
 * instant the inbox orders a payment's events by. The form itself (which
 * strings pass) is tested through the schema in test_schema.c. And
 * wh_time_rfc3339, the form the views print instants in. */
#include "wh_test.h"
#include "verify/wh_datetime.h"

#define S(x) x, sizeof(x) - 1

static apr_int64_t at(const char *s, apr_size_t len)
{
    apr_int64_t us = APR_INT64_C(-777);
    CU_ASSERT_EQUAL(wh_datetime_parse(s, len, &us), 0);
    return us;
}

static void test_epoch_and_utc(void)
{
    CU_ASSERT_EQUAL(at(S("1970-01-01T00:00:00Z")), 0);
    CU_ASSERT_EQUAL(at(S("1970-01-01t00:00:01z")), APR_INT64_C(1000000));
    CU_ASSERT_EQUAL(at(S("2017-01-01T00:00:00Z")), APR_INT64_C(1483228800000000));
    CU_ASSERT_EQUAL(at(S("2000-02-29T12:00:00Z")), APR_INT64_C(951825600000000));
    /* NULL out: only the check */
    CU_ASSERT_EQUAL(wh_datetime_parse(S("2026-11-22T14:05:09Z"), NULL), 0);
}

static void test_offsets(void)
{
    /* the spec's own form: a negative offset with a fraction */
    CU_ASSERT_EQUAL(at(S("2026-11-22T14:05:09.123-05:00")), APR_INT64_C(1795374309123000));
    CU_ASSERT_EQUAL(at(S("2026-11-22T19:05:09.123Z")), APR_INT64_C(1795374309123000));
    CU_ASSERT_EQUAL(at(S("2026-11-22T14:05:09+05:30")), APR_INT64_C(1795336509000000));
    /* -00:00 and +00:00 are UTC */
    CU_ASSERT_EQUAL(at(S("2026-11-22T14:05:09-00:00")), at(S("2026-11-22T14:05:09Z")));
    CU_ASSERT_EQUAL(at(S("2026-11-22T14:05:09+00:00")), at(S("2026-11-22T14:05:09Z")));
    /* an offset that crosses midnight and the year */
    CU_ASSERT_EQUAL(at(S("2026-01-01T00:30:00+01:00")), APR_INT64_C(1767223800000000));
    CU_ASSERT_EQUAL(at(S("2026-01-31T23:59:59-23:59")),
                    at(S("2026-02-01T23:58:59Z")));
}

static void test_fractions(void)
{
    apr_int64_t base = at(S("2026-11-22T14:05:09Z"));
    CU_ASSERT_EQUAL(at(S("2026-11-22T14:05:09.1Z")) - base, 100000);
    CU_ASSERT_EQUAL(at(S("2026-11-22T14:05:09.000001Z")) - base, 1);
    CU_ASSERT_EQUAL(at(S("2026-11-22T14:05:09.999999Z")) - base, 999999);
    /* digits past microseconds are cut, never rounded up into the next second */
    CU_ASSERT_EQUAL(at(S("2026-11-22T14:05:09.123456789Z")) - base, 123456);
    CU_ASSERT_EQUAL(at(S("2026-11-22T14:05:09.9999999Z")) - base, 999999);
}

static void test_leap_second(void)
{
    apr_int64_t leap = at(S("2016-12-31T23:59:60Z"));
    /* after :59 and its fractions, and equal to the next minute's :00 */
    CU_ASSERT(leap > at(S("2016-12-31T23:59:59.999999Z")));
    CU_ASSERT_EQUAL(leap, at(S("2017-01-01T00:00:00Z")));
    CU_ASSERT_EQUAL(at(S("2016-12-31T23:59:60.5Z")) - leap, 500000);
    /* with an offset, the leap second is still ordered after :59 */
    CU_ASSERT(at(S("2016-12-31T18:59:60-05:00")) > at(S("2016-12-31T18:59:59-05:00")));
}

static void test_before_and_after_epoch(void)
{
    CU_ASSERT_EQUAL(at(S("1969-12-31T23:59:59Z")), APR_INT64_C(-1000000));
    /* a fraction always adds, also before the epoch */
    CU_ASSERT_EQUAL(at(S("1969-12-31T23:59:59.5Z")), APR_INT64_C(-500000));
    CU_ASSERT_EQUAL(at(S("1900-03-01T00:00:00Z")), APR_INT64_C(-2203891200000000));
    CU_ASSERT_EQUAL(at(S("0001-01-01T00:00:00Z")), APR_INT64_C(-62135596800000000));
    /* year 0 is a leap year in the proleptic Gregorian calendar */
    CU_ASSERT_EQUAL(at(S("0000-01-01T00:00:00Z")), APR_INT64_C(-62167219200000000));
    CU_ASSERT_EQUAL(at(S("0000-02-29T00:00:00Z")) - at(S("0000-02-28T00:00:00Z")),
                    APR_INT64_C(86400000000));
    CU_ASSERT_EQUAL(at(S("9999-12-31T23:59:59.999999Z")), APR_INT64_C(253402300799999999));
    /* ordering follows the instant, not the text */
    CU_ASSERT(at(S("2026-11-22T10:00:00-05:00")) > at(S("2026-11-22T14:00:00Z")));
}

static void test_refused_forms_leave_out_alone(void)
{
    const char *bad[] = { "2026-11-22T14:05:09", "2026-02-29T00:00:00Z",
                          "2026-11-22T14:05:61Z", "2026-11-22T14:05:09+24:00",
                          "2026-11-22T14:05:09.Z", "2026-11-22T14:05:09.1234567890Z",
                          "2026-11-22 14:05:09Z", "", NULL };
    for (int i = 0; bad[i]; i++) {
        apr_int64_t us = 42;
        CU_ASSERT_EQUAL(wh_datetime_parse(bad[i], strlen(bad[i]), &us), -1);
        CU_ASSERT_EQUAL(us, 42);
    }
    /* the length bounds the read: a valid prefix is not enough, and bytes
     * past len are never looked at */
    CU_ASSERT_EQUAL(wh_datetime_parse("2026-11-22T14:05:09Zjunk", 20, NULL), 0);
    CU_ASSERT_EQUAL(wh_datetime_parse("2026-11-22T14:05:09Z", 19, NULL), -1);
    CU_ASSERT_EQUAL(wh_datetime_parse(NULL, 0, NULL), -1);
}

static void test_format_reads_back(void)
{
    apr_pool_t *p = wh_test_pool();
    const apr_time_t t[] = { 0, APR_INT64_C(1779458709123000),
                             APR_INT64_C(1779458709123999), APR_INT64_C(951825600000000) };
    const char *s;

    ASSERT_STR(wh_time_rfc3339(p, 0), "1970-01-01T00:00:00.000Z");
    ASSERT_STR(wh_time_rfc3339(p, APR_INT64_C(1779458709123456)),
               "2026-05-22T14:05:09.123Z");
    /* milliseconds: the parser reads back the instant cut to them */
    for (apr_size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        apr_int64_t us = -1;
        s = wh_time_rfc3339(p, t[i]);
        CU_ASSERT_EQUAL(wh_datetime_parse(s, strlen(s), &us), 0);
        CU_ASSERT_EQUAL(us, t[i] - t[i] % 1000);
    }
}

static const wh_test_case cases[] = {
    { "epoch and UTC", test_epoch_and_utc },
    { "offsets (+hh:mm, -hh:mm, -00:00, across midnight)", test_offsets },
    { "fractions: 1 to 9 digits, cut to microseconds", test_fractions },
    { "leap second :60 after :59, equal to the next :00", test_leap_second },
    { "before and after the epoch, years 0000-9999", test_before_and_after_epoch },
    { "refused forms leave *us alone", test_refused_forms_leave_out_alone },
    { "wh_time_rfc3339: UTC milliseconds the parser reads back", test_format_reads_back },
    { NULL, NULL }
};

WH_TEST_SUITE(datetime, cases)
