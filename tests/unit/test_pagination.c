/* wh_pagination_parse: the spec's offset/limit plus the two filters, and
 * every way a query string can be wrong (each must be a 400). */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "inbox/wh_inbox.h"
#include <stdio.h>
#include <string.h>

static wh_config *cfg(void)
{
    wh_config *c = wh_config_create(wh_test_pool());
    c->list_default_limit = 25;
    c->list_max_limit = 100;
    return c;
}

static wh_page_query ok(const char *query)
{
    wh_page_query q;
    const char *err = wh_pagination_parse(wh_test_pool(), query, cfg(), &q);
    if (err)
        fprintf(stderr, "  unexpected error for [%s]: %s\n", query ? query : "(null)", err);
    CU_ASSERT_PTR_NULL(err);
    return q;
}

static const char *bad(const char *query)
{
    wh_page_query q;
    const char *err = wh_pagination_parse(wh_test_pool(), query, cfg(), &q);
    if (!err)
        fprintf(stderr, "  accepted [%s]\n", query);
    CU_ASSERT_PTR_NOT_NULL(err);
    return err ? err : "";
}

static void test_defaults(void)
{
    wh_page_query q = ok(NULL);
    CU_ASSERT_EQUAL(q.offset, 0);
    CU_ASSERT_EQUAL(q.limit, 25);
    CU_ASSERT_PTR_NULL(q.payment_id);
    CU_ASSERT_PTR_NULL(q.status);
    q = ok("");
    CU_ASSERT_EQUAL(q.limit, 25);
}

static void test_default_limit_follows_config(void)
{
    wh_config *c = cfg();
    wh_page_query q;
    c->list_default_limit = 7;
    c->list_max_limit = 9;
    CU_ASSERT_PTR_NULL(wh_pagination_parse(wh_test_pool(), "offset=3", c, &q));
    CU_ASSERT_EQUAL(q.limit, 7);
    CU_ASSERT_EQUAL(q.offset, 3);
    CU_ASSERT_PTR_NULL(wh_pagination_parse(wh_test_pool(), "limit=9", c, &q));
    CU_ASSERT_EQUAL(q.limit, 9);
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse(wh_test_pool(), "limit=10", c, &q));
}

/* Found by fuzz_pagination: a one-digit limit above a one-digit maximum. */
static void test_small_max_limit(void)
{
    wh_config *c = cfg();
    wh_page_query q;
    c->list_default_limit = 1;
    c->list_max_limit = 1;
    CU_ASSERT_PTR_NULL(wh_pagination_parse(wh_test_pool(), "limit=1", c, &q));
    CU_ASSERT_EQUAL(q.limit, 1);
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse(wh_test_pool(), "limit=2", c, &q));
    c->list_max_limit = 5;
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse(wh_test_pool(), "limit=6", c, &q));
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse(wh_test_pool(), "limit=9", c, &q));
}

static void test_good_values(void)
{
    wh_page_query q = ok("offset=0&limit=1");
    CU_ASSERT_EQUAL(q.offset, 0);
    CU_ASSERT_EQUAL(q.limit, 1);
    q = ok("limit=100&offset=25");
    CU_ASSERT_EQUAL(q.offset, 25);
    CU_ASSERT_EQUAL(q.limit, 100);
    q = ok("offset=9007199254740991");
    CU_ASSERT_EQUAL(q.offset, APR_INT64_C(9007199254740991));
    q = ok("offset=007&limit=010");          /* leading zeros: same number */
    CU_ASSERT_EQUAL(q.offset, 7);
    CU_ASSERT_EQUAL(q.limit, 10);
    q = ok("&offset=1&&limit=2&");           /* empty pairs say nothing */
    CU_ASSERT_EQUAL(q.offset, 1);
    CU_ASSERT_EQUAL(q.limit, 2);
    q = ok("%6Fffset=4");                    /* names are decoded too */
    CU_ASSERT_EQUAL(q.offset, 4);
}

static void test_filters_decoded(void)
{
    wh_page_query q = ok("status=Send+Ready");
    CU_ASSERT_STRING_EQUAL(q.status, "Send Ready");
    q = ok("status=Send%20Ready&paymentId=WP-2026-000481");
    CU_ASSERT_STRING_EQUAL(q.status, "Send Ready");
    CU_ASSERT_STRING_EQUAL(q.payment_id, "WP-2026-000481");
    q = ok("paymentId=a%2Bb%26c%3Dd");
    CU_ASSERT_STRING_EQUAL(q.payment_id, "a+b&c=d");
    q = ok("paymentId=Zo%C3%AB");
    CU_ASSERT_STRING_EQUAL(q.payment_id, "Zo\xc3\xab");
    q = ok("paymentId=P%271%27%3B--");      /* harmless: bound, not spliced */
    CU_ASSERT_STRING_EQUAL(q.payment_id, "P'1';--");
    {
        char longq[200] = "paymentId=";
        memset(longq + 10, 'x', 128);
        longq[138] = '\0';
        q = ok(longq);
        CU_ASSERT_EQUAL(strlen(q.payment_id), 128);
    }
}

static void test_bad_offset(void)
{
    CU_ASSERT_PTR_NOT_NULL(strstr(bad("offset=abc"), "offset"));
    bad("offset=-1");
    bad("offset=1.5");
    bad("offset=1e3");
    bad("offset= 1");
    bad("offset=+1");                         /* '+' is a space */
    bad("offset=%2B1");                       /* a real '+' */
    bad("offset=0x10");
    bad("offset=");
    bad("offset");
    bad("offset=9007199254740992");           /* past 2^53 - 1 */
    bad("offset=99999999999999999999999999"); /* overflows 64 bits */
    bad("offset=1&offset=1");                 /* repeated, even if equal */
    bad("offset=%31%00");                     /* NUL */
}

static void test_bad_limit(void)
{
    CU_ASSERT_PTR_NOT_NULL(strstr(bad("limit=0"), "limit"));
    bad("limit=101");
    bad("limit=-5");
    bad("limit=");
    bad("limit");
    bad("limit=ten");
    bad("limit=1&limit=2");
    bad("limit=18446744073709551617");
    bad("limit=5 ");
}

static void test_bad_filters(void)
{
    char longq[200] = "paymentId=";
    memset(longq + 10, 'x', 129);
    longq[139] = '\0';
    bad(longq);                               /* 129 bytes */
    bad("paymentId=");
    bad("status=");
    bad("status=a&status=b");
    bad("paymentId=a&paymentId=a");
    bad("paymentId=%0Aevil");                 /* control character */
    bad("paymentId=%FF");                     /* not UTF-8 */
    bad("paymentId=%C0%AF");                  /* overlong */
    bad("paymentId=%ED%A0%80");               /* surrogate */
}

static void test_bad_encoding_and_unknown(void)
{
    CU_ASSERT_PTR_NOT_NULL(strstr(bad("ofset=10"), "ofset"));  /* typo caught */
    bad("Offset=10");                         /* names are case-sensitive */
    bad("page=2");
    bad("offset=1&foo");
    bad("offset=%");
    bad("offset=%4");
    bad("offset=%zz");
    bad("%=1");
    {
        /* an echoed unknown name is bounded and printable */
        const char *e = bad("%0A%0Dxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx=1");
        CU_ASSERT_PTR_NULL(strchr(e, '\n'));
        CU_ASSERT(strlen(e) < 140);
    }
    {
        static char huge[5000];
        memset(huge, 'a', sizeof(huge) - 1);
        memcpy(huge, "offset=", 7);
        bad(huge);
    }
}

static const wh_test_case cases[] = {
    { "defaults", test_defaults },
    { "default and max limit follow the config", test_default_limit_follows_config },
    { "limit above a one-digit maximum", test_small_max_limit },
    { "good offset and limit values", test_good_values },
    { "filters are URL-decoded", test_filters_decoded },
    { "every bad offset is refused", test_bad_offset },
    { "every bad limit is refused", test_bad_limit },
    { "bad filters are refused", test_bad_filters },
    { "bad encoding and unknown parameters are refused", test_bad_encoding_and_unknown },
    { NULL, NULL }
};

WH_TEST_SUITE(pagination, cases)
