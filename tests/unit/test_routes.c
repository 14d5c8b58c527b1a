/* The inbox's sub-paths (wh_endpoint_route, and 404/405 from
 * wh_endpoint_handle) and the JSON of the payment views. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "inbox/wh_endpoint.h"
#include "inbox/wh_pagination.h"
#include "inbox/wh_payments.h"

#include <apr_strings.h>
#include <json-c/json.h>
#include <string.h>

static apr_pool_t *P(void)
{
    return wh_test_pool();
}

static wh_route route(const char *sub)
{
    wh_route r;
    wh_endpoint_route(P(), sub, &r);
    return r;
}

static void test_route_inbox(void)
{
    CU_ASSERT_EQUAL(route(NULL).kind, WH_ROUTE_INBOX);
    CU_ASSERT_EQUAL(route("").kind, WH_ROUTE_INBOX);
    CU_ASSERT_EQUAL(route("/").kind, WH_ROUTE_INBOX);
}

static void test_route_payments(void)
{
    wh_route r = route("/payments");
    CU_ASSERT_EQUAL(r.kind, WH_ROUTE_PAYMENTS);
    CU_ASSERT_PTR_NULL(r.payment_id);
    r = route("/payments/WP-2026-000481");
    CU_ASSERT_EQUAL(r.kind, WH_ROUTE_PAYMENT);
    ASSERT_STR(r.payment_id, "WP-2026-000481");
    r = route("/payments/WP 1 \xc3\xa9");         /* decoded space, UTF-8 */
    CU_ASSERT_EQUAL(r.kind, WH_ROUTE_PAYMENT);
    ASSERT_STR(r.payment_id, "WP 1 \xc3\xa9");
}

static void test_route_unknown(void)
{
    const char *bad[] = { "/anything", "//", "/payment", "/paymentsX", "/payments/",
                          "/payments/a/b", "/payments/x/", "/Payments", "payments",
                          "/payments/\x01", "/payments/\xff\xfe", "/events", NULL };
    for (int i = 0; bad[i]; i++) {
        wh_route r = route(bad[i]);
        CU_ASSERT_EQUAL(r.kind, WH_ROUTE_UNKNOWN);
        CU_ASSERT_PTR_NULL(r.payment_id);
    }
    char *long_id = apr_pstrcat(P(), "/payments/", NULL);
    for (int i = 0; i < 129; i++)
        long_id = apr_pstrcat(P(), long_id, "x", NULL);
    CU_ASSERT_EQUAL(route(long_id).kind, WH_ROUTE_UNKNOWN);
}

static const char *no_header(void *ctx, const char *name)
{
    (void)ctx;
    (void)name;
    return NULL;
}

static wh_response handle(const char *method, const char *sub)
{
    wh_config *cfg = wh_config_create(P());
    wh_verifier *vf;
    wh_request req;
    wh_response res;

    cfg->users = apr_hash_make(P());
    cfg->secrets = apr_array_make(P(), 1, sizeof(wh_secret));
    vf = wh_verifier_create(P(), cfg, NULL);
    memset(&req, 0, sizeof(req));
    req.method = method;
    req.url = "http://127.0.0.1/inbox";
    req.header = no_header;
    req.body = "";
    req.now = apr_time_now();
    wh_endpoint_handle(vf, NULL, &req, sub, NULL, P(), &res);
    return res;
}

static void test_handle_unknown_is_404(void)
{
    const char *methods[] = { "GET", "HEAD", "POST", "PUT", "DELETE", NULL };
    for (int i = 0; methods[i]; i++) {
        wh_response r = handle(methods[i], "/anything");
        CU_ASSERT_EQUAL(r.status, 404);
        CU_ASSERT(contains(r.body, "\"code\":\"not_found\""));
        ASSERT_STR(r.content_type, "application/json");
    }
}

static void test_error_document(void)
{
    wh_response r;
    const struct { int status; const char *code; } cases[] = {
        { 404, "not_found" }, { 405, "bad_request" }, { 401, "bad_request" },
        { 500, "internal_error" }, { 503, "internal_error" }, { 0, NULL } };

    for (int i = 0; cases[i].code; i++) {
        memset(&r, 0, sizeof(r));
        CU_ASSERT_EQUAL(wh_endpoint_error_document(P(), cases[i].status, &r), 1);
        CU_ASSERT_EQUAL(r.status, cases[i].status);
        CU_ASSERT(contains(r.body, cases[i].code));
        CU_ASSERT(contains(r.body, "not an error document"));
        ASSERT_STR(r.content_type, "application/json");
    }
    /* a redirect that is not an error (mod_rewrite, FallbackResource:
     * REDIRECT_STATUS 200) or no status at all: served as usual */
    const int ok[] = { 0, 200, 204, 302, 399, 600 };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        memset(&r, 0, sizeof(r));
        CU_ASSERT_EQUAL(wh_endpoint_error_document(P(), ok[i], &r), 0);
        CU_ASSERT_EQUAL(r.status, 0);
    }
}

static void test_handle_views_are_read_only(void)
{
    const char *subs[] = { "/payments", "/payments/WP-1", NULL };
    for (int i = 0; subs[i]; i++) {
        wh_response r = handle("POST", subs[i]);
        CU_ASSERT_EQUAL(r.status, 405);
        ASSERT_STR(r.allow, "GET, HEAD");
        r = handle("DELETE", subs[i]);
        CU_ASSERT_EQUAL(r.status, 405);
    }
    wh_response r = handle("PUT", "/");
    CU_ASSERT_EQUAL(r.status, 405);
    ASSERT_STR(r.allow, "GET, HEAD, POST");
}

static void test_handle_views_need_auth(void)
{
    /* credentials are checked before anything is said about a payment */
    wh_response r = handle("GET", "/payments/WP-1");
    CU_ASSERT_EQUAL(r.status, 401);
    CU_ASSERT(contains(r.body, "auth_required"));
    r = handle("GET", "/payments");
    CU_ASSERT_EQUAL(r.status, 401);
}

/* ---- the payments query ------------------------------------------- */

static void test_payments_query(void)
{
    wh_config *cfg = wh_config_create(P());
    wh_page_query q;
    CU_ASSERT_PTR_NULL(wh_pagination_parse_filters(P(), "status=Exception&offset=5&limit=2",
                                                    cfg, WH_PAGE_STATUS, &q));
    ASSERT_STR(q.status, "Exception");
    CU_ASSERT_EQUAL(q.offset, 5);
    CU_ASSERT_EQUAL(q.limit, 2);
    CU_ASSERT_PTR_NULL(wh_pagination_parse_filters(P(), "status=Send+Ready", cfg,
                                                    WH_PAGE_STATUS, &q));
    ASSERT_STR(q.status, "Send Ready");
    CU_ASSERT_PTR_NULL(wh_pagination_parse_filters(P(), "", cfg, WH_PAGE_STATUS, &q));
    CU_ASSERT_PTR_NULL(q.status);
    CU_ASSERT_EQUAL(q.limit, 25);
    /* paymentId is the events listing's filter, not this list's */
    const char *err = wh_pagination_parse_filters(P(), "paymentId=WP-1", cfg,
                                                  WH_PAGE_STATUS, &q);
    CU_ASSERT(contains(err, "unknown query parameter 'paymentId'"));
    CU_ASSERT(contains(err, "known: offset, limit, status"));
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse_filters(P(), "status=", cfg, WH_PAGE_STATUS, &q));
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse_filters(P(), "status=a&status=b", cfg,
                                                        WH_PAGE_STATUS, &q));
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse_filters(P(), "limit=0", cfg, WH_PAGE_STATUS, &q));
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse_filters(P(), "limit=101", cfg, WH_PAGE_STATUS, &q));
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse_filters(P(), "offset=-1", cfg, WH_PAGE_STATUS, &q));
    CU_ASSERT_PTR_NOT_NULL(wh_pagination_parse_filters(P(), "status=%ff", cfg, WH_PAGE_STATUS, &q));
    /* the events listing keeps its four */
    CU_ASSERT_PTR_NULL(wh_pagination_parse(P(), "paymentId=a&status=b&offset=1&limit=1", cfg, &q));
}

/* ---- the JSON ------------------------------------------------------ */

static json_object *parse(const char *s)
{
    return s ? json_tokener_parse(s) : NULL;
}

static const char *get(json_object *o, const char *k)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static void test_payment_json(void)
{
    wh_payment_row pay = { "WP-1", "Complete", "2026-11-22T14:05:09.123-05:00",
                           "8cefee42-cb39-4479-b7fd-b8a358aeb002", 2,
                           apr_time_from_sec(1800000000) + 123456 };
    apr_array_header_t *h = apr_array_make(P(), 2, sizeof(wh_payment_event));
    wh_payment_event *e = apr_array_push(h);
    e->notification_id = "a";
    e->event_type = "wire.status";
    e->event_time = "2026-11-22T14:00:00Z";
    e->status = "Review";
    e->received_at = apr_time_from_sec(1800000000);
    e = apr_array_push(h);
    e->notification_id = "8cefee42-cb39-4479-b7fd-b8a358aeb002";
    e->event_type = "wire.status";
    e->event_time = "2026-11-22T14:05:09.123-05:00";
    e->status = "Complete";
    e->received_at = apr_time_from_sec(1800000001);

    json_object *o = parse(wh_payment_json(P(), &pay, h, 0)), *v, *first;
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    ASSERT_STR(get(o, "paymentId"), "WP-1");
    ASSERT_STR(get(o, "status"), "Complete");
    ASSERT_STR(get(o, "statusKnown"), "true");
    ASSERT_STR(get(o, "eventDateTime"), "2026-11-22T14:05:09.123-05:00");
    ASSERT_STR(get(o, "events"), "2");
    ASSERT_STR(get(o, "updatedAt"), "2027-01-15T08:00:00.123Z");
    ASSERT_STR(get(o, "historyTruncated"), "false");
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "history", &v));
    CU_ASSERT_EQUAL(json_object_array_length(v), 2);
    first = json_object_array_get_idx(v, 0);
    ASSERT_STR(get(first, "status"), "Review");
    ASSERT_STR(get(first, "receivedAt"), "2027-01-15T08:00:00.000Z");
    ASSERT_STR(get(first, "eventType"), "wire.status");
    json_object_put(o);

    pay.status = "Processed";
    o = parse(wh_payment_json(P(), &pay, NULL, 1));
    ASSERT_STR(get(o, "statusKnown"), "false");
    ASSERT_STR(get(o, "historyTruncated"), "true");
    json_object_put(o);
}

static void test_payments_page_json(void)
{
    apr_array_header_t *rows = apr_array_make(P(), 2, sizeof(wh_payment_row));
    wh_payment_row *r = apr_array_push(rows);
    memset(r, 0, sizeof(*r));
    r->payment_id = "WP-\"quoted\"\n";
    r->status = "Exception";
    r->events = 1;
    json_object *o = parse(wh_payments_page_json(P(), rows, 7, 1)), *arr, *pg;
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "payments", &arr));
    CU_ASSERT_EQUAL(json_object_array_length(arr), 1);
    ASSERT_STR(get(json_object_array_get_idx(arr, 0), "paymentId"), "WP-\"quoted\"\n");
    CU_ASSERT(!json_object_object_get_ex(json_object_array_get_idx(arr, 0), "history", NULL));
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "pagination", &pg));
    CU_ASSERT(json_object_is_type(json_object_object_get(pg, "offset"), json_type_string));
    ASSERT_STR(get(pg, "offset"), "7");
    ASSERT_STR(get(pg, "moreRecords"), "true");
    json_object_put(o);
    o = parse(wh_payments_page_json(P(), apr_array_make(P(), 0, sizeof(wh_payment_row)), 0, 0));
    ASSERT_STR(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
               "{\"payments\":[],\"pagination\":{\"offset\":\"0\",\"moreRecords\":false}}");
    json_object_put(o);
}

static const wh_test_case cases[] = {
    { "route: the inbox itself", test_route_inbox },
    { "route: /payments and /payments/{id}", test_route_payments },
    { "route: anything else is unknown", test_route_unknown },
    { "handle: unknown sub-path is 404 not_found", test_handle_unknown_is_404 },
    { "error document: the failed status, never a listing", test_error_document },
    { "handle: views answer 405 to writes", test_handle_views_are_read_only },
    { "handle: views need Basic auth", test_handle_views_need_auth },
    { "payments query: offset, limit, status only", test_payments_query },
    { "payment JSON: current status and history", test_payment_json },
    { "payments page JSON: records and pagination", test_payments_page_json },
    { NULL, NULL }
};

WH_TEST_SUITE(routes, cases)
