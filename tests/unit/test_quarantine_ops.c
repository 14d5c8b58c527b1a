/* Checking a quarantined body again (wh_quarantine_check): JSON and schema
 * only, with the configuration of today. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "inbox/wh_quarantine_ops.h"

#include <apr_strings.h>
#include <json-c/json.h>
#include <string.h>

static const char *sample_with_status(const char *status)
{
    apr_pool_t *p = wh_test_pool();
    char *s = wh_test_slurp(apr_pstrcat(p, wh_test_shared_dir(),
                                        "/samples/wire-status-complete.json", NULL), NULL);
    char *at = s ? strstr(s, "\"Complete\"") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    *at = '\0';
    return apr_pstrcat(p, s, "\"", status, "\"", at + strlen("\"Complete\""), NULL);
}

static void test_unknown_status_both_ways(void)
{
    wh_config *cfg = wh_config_create(wh_test_pool());
    const char *body = sample_with_status("Processed");
    wh_verdict v;

    cfg->unknown_status_reject = 1;
    wh_quarantine_check(wh_test_pool(), cfg, body, strlen(body), &v);
    CU_ASSERT_EQUAL(v.ok, 0);
    ASSERT_STR(v.code, "schema_violation");
    CU_ASSERT_EQUAL_FATAL(v.details->nelts, 1);
    ASSERT_STR(APR_ARRAY_IDX(v.details, 0, wh_problem).field, "/data/wireEventInfo/status");

    cfg->unknown_status_reject = 0;
    wh_quarantine_check(wh_test_pool(), cfg, body, strlen(body), &v);
    CU_ASSERT_EQUAL(v.ok, 1);
    ASSERT_STR(v.facts.status, "Processed");
    ASSERT_STR(v.facts.payment_id, "WP-2026-000481");
    CU_ASSERT_PTR_NOT_NULL(v.facts.notification_id);
}

static void test_broken_json_never_passes(void)
{
    wh_config *cfg = wh_config_create(wh_test_pool());
    const char broken[] = "{\"notificationId\":\"x\x01\", ";
    wh_verdict v;

    wh_quarantine_check(wh_test_pool(), cfg, broken, sizeof(broken) - 1, &v);
    CU_ASSERT_EQUAL(v.ok, 0);
    ASSERT_STR(v.code, "invalid_json");
    CU_ASSERT_PTR_NOT_NULL(v.message);
    /* a body with a NUL inside is not JSON either */
    wh_quarantine_check(wh_test_pool(), cfg, "{}\0{}", 5, &v);
    CU_ASSERT_EQUAL(v.ok, 0);
    wh_quarantine_check(wh_test_pool(), cfg, NULL, 0, &v);
    CU_ASSERT_EQUAL(v.ok, 0);
}

static void test_schema_problems_listed(void)
{
    wh_config *cfg = wh_config_create(wh_test_pool());
    const char *body = "{\"notificationId\":\"12345\",\"eventType\":\"wire.status\","
                       "\"eventDateTime\":\"yesterday\",\"data\":{}}";
    wh_verdict v;

    wh_quarantine_check(wh_test_pool(), cfg, body, strlen(body), &v);
    CU_ASSERT_EQUAL(v.ok, 0);
    ASSERT_STR(v.code, "schema_violation");
    CU_ASSERT(v.details->nelts >= 3);
}

static const wh_test_case cases[] = {
    { "UnknownStatus decides a release", test_unknown_status_both_ways },
    { "broken JSON never passes", test_broken_json_never_passes },
    { "every schema problem is listed", test_schema_problems_listed },
    { NULL, NULL }
};

WH_TEST_SUITE(quarantine_ops, cases)
