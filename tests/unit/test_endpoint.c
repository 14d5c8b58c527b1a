/* The host-neutral inbox endpoint: status, headers and JSON of every kind
 * of answer, on a SQLite inbox in a temp directory. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "inbox/wh_endpoint.h"
#include "inbox/wh_inbox_sql.h"
#include "verify/wh_signature.h"
#include <apr_dbd.h>
#include <apr_file_io.h>
#include <apr_strings.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECRET "endpoint-signing-key"
#define URL "https://hooks.example.com/inbox"
#define AUTH_OK "Basic YmFuazI6cHcy"     /* bank2:pw2 */
#define AUTH_BAD "Basic YmFuazI6bm9wZQ=="  /* bank2:nope */

typedef struct {
    const char *dir;
    wh_config *cfg;
    wh_verifier *vf;
    wh_inbox *ib;
    apr_table_t *headers;
    wh_request req;
    wh_response res;
    char log[4096];
} fx;

static void capture_log(void *baton, wh_log_level level, const char *msg)
{
    fx *f = baton;
    size_t used = strlen(f->log);
    (void)level;
    apr_cpystrn(f->log + used, msg, sizeof(f->log) - used);
}

static const char *table_header(void *ctx, const char *name)
{
    return apr_table_get((apr_table_t *)ctx, name);
}

static const char *sample(void)
{
    return wh_test_slurp(apr_pstrcat(wh_test_pool(), wh_test_shared_dir(),
                                     "/samples/wire-status-complete.json", NULL), NULL);
}

static void sign_request(fx *f)
{
    apr_pool_t *p = wh_test_pool();
    unsigned char raw[WH_SIG_RAW_LEN];
    char *hex = apr_palloc(p, 65);
    const char *ts = apr_psprintf(p, "%" APR_INT64_T_FMT,
                                  (apr_int64_t)apr_time_sec(f->req.now));
    wh_signature_compute((const unsigned char *)SECRET, strlen(SECRET), f->req.method,
                         f->req.url, f->req.body, f->req.body_len, ts, raw);
    wh_signature_hex(raw, hex);
    apr_table_set(f->headers, "X-Timestamp", ts);
    apr_table_set(f->headers, "X-Signature", hex);
    apr_table_set(f->headers, "Content-Length",
                  apr_psprintf(p, "%" APR_SIZE_T_FMT, f->req.body_len));
}

static fx *make(int with_inbox)
{
    apr_pool_t *p = wh_test_pool();
    fx *f = apr_pcalloc(p, sizeof(*f));
    wh_logger lg = { capture_log, f };
    const char *dir = wh_test_tmpdir("endpoint");
    wh_secret *sec;

    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    f->dir = dir;
    f->cfg = wh_config_create(p);
    f->cfg->secrets = apr_array_make(p, 1, sizeof(wh_secret));
    sec = apr_array_push(f->cfg->secrets);
    sec->key = (const unsigned char *)SECRET;
    sec->len = strlen(SECRET);
    f->cfg->users = apr_hash_make(p);
    apr_hash_set(f->cfg->users, "bank2", APR_HASH_KEY_STRING,
                 "{SHA}8Wyi36Noi/CMek4hVErxW9WYy3A=");
    f->cfg->auth_realm = "Wire Inbox";
    f->cfg->list_default_limit = 25;
    f->cfg->list_max_limit = 100;
    f->cfg->inbox_driver = WH_INBOX_SQLITE3;
    f->cfg->inbox_driver_name = "sqlite3";
    f->cfg->inbox_params = apr_pstrcat(p, dir, "/inbox.db", NULL);
    f->vf = wh_verifier_create(p, f->cfg, &lg);
    if (with_inbox)
        CU_ASSERT_PTR_NULL_FATAL(wh_inbox_open(p, f->cfg, &lg, &f->ib));
    f->headers = apr_table_make(p, 8);
    apr_table_set(f->headers, "Authorization", AUTH_OK);
    apr_table_set(f->headers, "Content-Type", "application/json");
    f->req.method = "POST";
    f->req.url = URL;
    f->req.header = table_header;
    f->req.header_ctx = f->headers;
    f->req.body = sample();
    f->req.body_len = strlen(f->req.body);
    f->req.now = apr_time_now();
    sign_request(f);
    return f;
}

static void handle(fx *f, const char *query)
{
    memset(&f->res, 0, sizeof(f->res));
    wh_endpoint_handle(f->vf, f->ib, &f->req, NULL, query, wh_test_pool(), &f->res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->res.body);
    CU_ASSERT_STRING_EQUAL(f->res.content_type, "application/json");
}

static void get(fx *f, const char *query)
{
    f->req.method = "GET";
    f->req.body = "";
    f->req.body_len = 0;
    handle(f, query);
}

/* error.code, or status for acks */
static const char *code_of(const char *json)
{
    json_object *root = json_tokener_parse(json), *o, *c;
    const char *out = "";
    if (!root)
        return "(not json)";
    if (json_object_object_get_ex(root, "error", &o) &&
        json_object_object_get_ex(o, "code", &c))
        out = apr_pstrdup(wh_test_pool(), json_object_get_string(c));
    else if (json_object_object_get_ex(root, "status", &c))
        out = apr_pstrdup(wh_test_pool(), json_object_get_string(c));
    json_object_put(root);
    return out;
}

static void expect(fx *f, int status, const char *code)
{
    CU_ASSERT_EQUAL(f->res.status, status);
    if (strcmp(code_of(f->res.body), code) != 0)
        fprintf(stderr, "  expected %d %s, got %d %s\n", status, code, f->res.status,
                f->res.body);
    CU_ASSERT_STRING_EQUAL(code_of(f->res.body), code);
}

static const char *count_rows(fx *f, const char *table)
{
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h = NULL;
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    const char *v = NULL, *err = NULL;
    apr_pool_t *p = wh_test_pool();

    apr_dbd_init(p);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_get_driver(p, "sqlite3", &drv), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_open_ex(drv, p, f->cfg->inbox_params, &h, &err), APR_SUCCESS);
    if (apr_dbd_select(drv, p, h, &res, apr_pstrcat(p, "SELECT count(*) FROM ", table, NULL),
                       1) == 0)
        while (apr_dbd_get_row(drv, p, res, &row, -1) == 0)
            if (!v)
                v = apr_pstrdup(p, apr_dbd_get_entry(drv, row, 0));
    apr_dbd_close(drv, h);
    return v ? v : "?";
}

static void test_post_accepted_then_duplicate(void)
{
    fx *f = make(1);
    handle(f, NULL);
    expect(f, 200, "accepted");
    CU_ASSERT_PTR_NOT_NULL(strstr(f->res.body, "\"notificationId\":\"8cefee42-cb39-4479-b7fd-b8a358aeb002\""));
    CU_ASSERT_PTR_NULL(f->res.allow);
    CU_ASSERT_PTR_NULL(f->res.www_authenticate);
    handle(f, NULL);
    expect(f, 200, "duplicate");
    CU_ASSERT_PTR_NOT_NULL(strstr(f->res.body, "8cefee42-cb39-4479-b7fd-b8a358aeb002"));
    CU_ASSERT_STRING_EQUAL(count_rows(f, "wh_events"), "1");
}

static void test_post_bad_signature_not_stored(void)
{
    fx *f = make(1);
    apr_table_set(f->headers, "X-Signature",
                  "0000000000000000000000000000000000000000000000000000000000000000");
    handle(f, NULL);
    expect(f, 401, WH_CODE_SIG_MISMATCH);
    CU_ASSERT_STRING_EQUAL(count_rows(f, "wh_events"), "0");
    CU_ASSERT_STRING_EQUAL(count_rows(f, "wh_quarantine"), "0");   /* not authentic */
}

static void test_post_invalid_json_quarantined(void)
{
    fx *f = make(1);
    f->req.body = "{\"notificationId\": ";
    f->req.body_len = strlen(f->req.body);
    sign_request(f);
    handle(f, NULL);
    expect(f, 400, WH_CODE_INVALID_JSON);
    CU_ASSERT_STRING_EQUAL(count_rows(f, "wh_quarantine"), "1");
    CU_ASSERT_STRING_EQUAL(count_rows(f, "wh_events"), "0");
}

static void test_post_schema_violation_quarantined(void)
{
    fx *f = make(1);
    f->req.body = "{\"notificationId\":\"short\",\"eventType\":\"wire.status\"}";
    f->req.body_len = strlen(f->req.body);
    sign_request(f);
    handle(f, NULL);
    expect(f, 400, WH_CODE_SCHEMA_VIOLATION);
    CU_ASSERT_STRING_EQUAL(count_rows(f, "wh_quarantine"), "1");
    /* not an event: the listing stays empty */
    get(f, NULL);
    expect(f, 200, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(f->res.body, "\"events\":[]"));
}

static void test_post_without_inbox_is_503(void)
{
    fx *f = make(0);
    handle(f, NULL);
    expect(f, 503, WH_CODE_INBOX_UNAVAILABLE);
    /* back when the host tries to open it again */
    CU_ASSERT_EQUAL(f->res.retry_after, (int)apr_time_sec(WH_ENDPOINT_OPEN_RETRY));
    get(f, NULL);
    expect(f, 503, WH_CODE_INBOX_UNAVAILABLE);
    CU_ASSERT_EQUAL(f->res.retry_after, (int)apr_time_sec(WH_ENDPOINT_OPEN_RETRY));
}

static void test_post_store_failure_is_503(void)
{
    fx *f = make(1);
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h = NULL;
    const char *err = NULL;
    int n = 0;

    wh_inbox_set_lock_wait_ms(f->ib, 0);
    apr_dbd_init(wh_test_pool());
    CU_ASSERT_EQUAL_FATAL(apr_dbd_get_driver(wh_test_pool(), "sqlite3", &drv), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_open_ex(drv, wh_test_pool(), f->cfg->inbox_params, &h, &err),
                          APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_query(drv, h, &n, "BEGIN EXCLUSIVE"), 0);
    handle(f, NULL);
    expect(f, 503, WH_CODE_INBOX_UNAVAILABLE);   /* never a 200 that was not kept */
    /* back when the inbox tries again */
    CU_ASSERT_EQUAL(f->res.retry_after, WH_INBOX_RETRY_MS / 1000);
    apr_dbd_query(drv, h, &n, "ROLLBACK");
    apr_dbd_close(drv, h);
    handle(f, NULL);
    expect(f, 200, "accepted");                   /* the sender's retry lands */
    CU_ASSERT_EQUAL(f->res.retry_after, 0);
}

static void test_get_lists_with_pagination(void)
{
    fx *f = make(1);
    const char *body = f->req.body;
    handle(f, NULL);
    expect(f, 200, "accepted");
    get(f, "offset=0&limit=10");
    CU_ASSERT_EQUAL(f->res.status, 200);
    CU_ASSERT_STRING_EQUAL(f->res.body,
                           apr_pstrcat(wh_test_pool(), "{\"events\":[", body,
                                       "],\"pagination\":{\"offset\":\"1\","
                                       "\"moreRecords\":false}}", NULL));
    get(f, "offset=1");
    CU_ASSERT_STRING_EQUAL(f->res.body, "{\"events\":[],\"pagination\":{\"offset\":\"1\","
                                        "\"moreRecords\":false}}");
    get(f, "paymentId=WP-2026-000481&status=Complete");
    CU_ASSERT_PTR_NOT_NULL(strstr(f->res.body, "\"offset\":\"1\""));
    f->req.method = "HEAD";
    handle(f, NULL);
    CU_ASSERT_EQUAL(f->res.status, 200);
}

static void test_get_auth_required_and_failed(void)
{
    fx *f = make(1);
    apr_table_unset(f->headers, "Authorization");
    get(f, NULL);
    expect(f, 401, WH_CODE_AUTH_REQUIRED);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->res.www_authenticate);
    CU_ASSERT_STRING_EQUAL(f->res.www_authenticate, "Basic realm=\"Wire Inbox\", charset=\"UTF-8\"");
    apr_table_set(f->headers, "Authorization", AUTH_BAD);
    get(f, "offset=0");
    expect(f, 401, WH_CODE_AUTH_FAILED);
    CU_ASSERT_PTR_NOT_NULL(f->res.www_authenticate);
    /* authentication comes before the query is judged */
    get(f, "ofset=1");
    expect(f, 401, WH_CODE_AUTH_FAILED);
    /* the POST side says the same */
    f->req.method = "POST";
    f->req.body = sample();
    f->req.body_len = strlen(f->req.body);
    handle(f, NULL);
    expect(f, 401, WH_CODE_AUTH_FAILED);
    CU_ASSERT_STRING_EQUAL(f->res.www_authenticate, "Basic realm=\"Wire Inbox\", charset=\"UTF-8\"");
}

static void test_get_bad_query_is_400(void)
{
    fx *f = make(1);
    const char *queries[] = { "ofset=1", "limit=0", "limit=101", "offset=-1", "offset=",
                              "offset=1&offset=2", "limit=x", "offset=%zz", "status=" };
    for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
        get(f, queries[i]);
        expect(f, 400, WH_CODE_INVALID_PAGINATION);
    }
}

static void test_other_methods_405(void)
{
    fx *f = make(1);
    const char *methods[] = { "PUT", "DELETE", "PATCH", "OPTIONS", "post" };
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        f->req.method = methods[i];
        handle(f, NULL);
        expect(f, 405, WH_CODE_METHOD_NOT_ALLOWED);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f->res.allow);
        CU_ASSERT_STRING_EQUAL(f->res.allow, "GET, HEAD, POST");
    }
}

static void test_store_from_known_verdict(void)
{
    fx *f = make(1);
    wh_verdict v;
    wh_verdict_init(&v, wh_test_pool());
    wh_verdict_fail(&v, 401, WH_CODE_TS_EXPIRED, "old");
    memset(&f->res, 0, sizeof(f->res));
    wh_endpoint_store(f->ib, &f->req, &v, wh_test_pool(), &f->res);
    expect(f, 401, WH_CODE_TS_EXPIRED);
    CU_ASSERT_STRING_EQUAL(count_rows(f, "wh_quarantine"), "0");
}

static const wh_test_case cases[] = {
    { "POST accepted, then duplicate", test_post_accepted_then_duplicate },
    { "POST with a bad signature: 401, nothing kept", test_post_bad_signature_not_stored },
    { "POST invalid JSON: 400 and quarantined", test_post_invalid_json_quarantined },
    { "POST schema violation: 400 and quarantined", test_post_schema_violation_quarantined },
    { "no inbox: 503", test_post_without_inbox_is_503 },
    { "store failure: 503, then the retry lands", test_post_store_failure_is_503 },
    { "GET lists with pagination", test_get_lists_with_pagination },
    { "GET: 401 auth required / failed with the challenge", test_get_auth_required_and_failed },
    { "GET with a bad query: 400 invalid_pagination", test_get_bad_query_is_400 },
    { "other methods: 405 with Allow", test_other_methods_405 },
    { "store answers a failed verdict as it is", test_store_from_known_verdict },
    { NULL, NULL }
};

WH_TEST_SUITE(endpoint, cases)
