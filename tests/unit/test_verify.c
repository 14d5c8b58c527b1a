/* The verdict pipeline end to end: every code, in the documented order,
 * with the facts a host needs and no secret in any output. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "verify/wh_verify.h"
#include "verify/wh_signature.h"
#include "verify/wh_response.h"
#include "verify/wh_log.h"
#include <apr_lib.h>
#include <apr_base64.h>
#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

#define SECRET "test-signing-key"
#define OLD_SECRET "previous-key"
#define PASSWORD "pw2"
#define URL "https://hooks.example.com/v1/wires"
#define NOW_SEC 1700000000LL

typedef struct {
    wh_config *cfg;
    wh_verifier *vf;
    apr_table_t *headers;
    wh_request req;
    wh_verdict v;
    char log[4096];
} fixture;

static void capture_log(void *baton, wh_log_level level, const char *msg)
{
    fixture *f = baton;
    (void)level;
    apr_cpystrn(f->log + strlen(f->log), msg, sizeof(f->log) - strlen(f->log));
}

static const char *table_header(void *ctx, const char *name)
{
    return apr_table_get((apr_table_t *)ctx, name);
}

static void add_secret(wh_config *cfg, const char *s)
{
    wh_secret *sec = apr_array_push(cfg->secrets);
    sec->key = (const unsigned char *)s;
    sec->len = strlen(s);
}

static const char *sample_body(const char *file)
{
    return wh_test_slurp(apr_pstrcat(wh_test_pool(), wh_test_shared_dir(),
                                     "/samples/", file, NULL), NULL);
}

static const char *sign(const char *secret, const char *method, const char *url,
                        const char *body, const char *ts)
{
    unsigned char raw[WH_SIG_RAW_LEN];
    char *hex = apr_palloc(wh_test_pool(), 65);
    wh_signature_compute((const unsigned char *)secret, strlen(secret), method, url,
                         body, strlen(body), ts, raw);
    wh_signature_hex(raw, hex);
    return hex;
}

/* A request exactly as the bank would send it. */
static fixture *make(const char *body)
{
    apr_pool_t *p = wh_test_pool();
    fixture *f = apr_pcalloc(p, sizeof(*f));
    wh_logger lg = { capture_log, f };
    const char *ts = apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)NOW_SEC);

    f->cfg = wh_config_create(p);
    f->cfg->secrets = apr_array_make(p, 2, sizeof(wh_secret));
    add_secret(f->cfg, OLD_SECRET);
    add_secret(f->cfg, SECRET);
    f->cfg->users = apr_hash_make(p);
    apr_hash_set(f->cfg->users, "bank2", APR_HASH_KEY_STRING, "{SHA}8Wyi36Noi/CMek4hVErxW9WYy3A=");
    f->vf = wh_verifier_create(p, f->cfg, &lg);
    f->headers = apr_table_make(p, 8);
    apr_table_set(f->headers, "Authorization", "Basic YmFuazI6cHcy");  /* bank2:pw2 */
    apr_table_set(f->headers, "Content-Type", "application/json");
    apr_table_set(f->headers, "X-Timestamp", ts);
    apr_table_set(f->headers, "X-Signature", sign(SECRET, "POST", URL, body, ts));
    apr_table_set(f->headers, "Content-Length", apr_psprintf(p, "%" APR_SIZE_T_FMT, strlen(body)));
    f->req.method = "POST";
    f->req.url = URL;
    f->req.header = table_header;
    f->req.header_ctx = f->headers;
    f->req.body = body;
    f->req.body_len = strlen(body);
    f->req.now = apr_time_from_sec(NOW_SEC);
    wh_verdict_init(&f->v, p);
    return f;
}

static void resign(fixture *f)
{
    apr_table_set(f->headers, "X-Signature",
                  sign(SECRET, f->req.method, f->req.url, f->req.body,
                       apr_table_get(f->headers, f->cfg->timestamp_header)));
}

static int run(fixture *f)
{
    wh_verdict_init(&f->v, wh_test_pool());
    return wh_verify(f->vf, &f->req, &f->v, wh_test_pool());
}

static void expect(fixture *f, int status, const char *code)
{
    CU_ASSERT_EQUAL(run(f), status);
    CU_ASSERT_EQUAL(f->v.status, status);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->v.code);
    if (strcmp(f->v.code, code) != 0)
        fprintf(stderr, "  expected %s, got %d %s: %s\n", code, f->v.status, f->v.code,
                f->v.message ? f->v.message : "");
    CU_ASSERT_STRING_EQUAL(f->v.code, code);
    CU_ASSERT_EQUAL(f->v.ok, status == 200);
}

static void test_accepts_sample_with_facts(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    expect(f, 200, WH_CODE_ACCEPTED);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->v.facts.notification_id);
    CU_ASSERT_STRING_EQUAL(f->v.facts.notification_id, "8cefee42-cb39-4479-b7fd-b8a358aeb002");
    CU_ASSERT_STRING_EQUAL(f->v.facts.event_type, "wire.status");
    CU_ASSERT_STRING_EQUAL(f->v.facts.event_time, "2026-11-22T14:05:09Z");
    CU_ASSERT_STRING_EQUAL(f->v.facts.payment_id, "WP-2026-000481");
    CU_ASSERT_STRING_EQUAL(f->v.facts.status, "Complete");
    CU_ASSERT_EQUAL(f->v.facts.status_known, 1);
    CU_ASSERT_STRING_EQUAL(f->v.facts.user, "bank2");
    CU_ASSERT_EQUAL(f->v.details->nelts, 0);
}

static void test_processed_accepted_and_flagged(void)
{
    fixture *f = make(sample_body("wire-status-processed-as-in-spec-sample.json"));
    expect(f, 200, WH_CODE_ACCEPTED);
    CU_ASSERT_STRING_EQUAL(f->v.facts.status, "Processed");
    CU_ASSERT_EQUAL(f->v.facts.status_known, 0);
}

static void test_processed_rejected_when_configured(void)
{
    fixture *f = make(sample_body("wire-status-processed-as-in-spec-sample.json"));
    f->cfg->unknown_status_reject = 1;
    expect(f, 400, WH_CODE_SCHEMA_VIOLATION);
    CU_ASSERT_EQUAL_FATAL(f->v.details->nelts, 1);
    CU_ASSERT_STRING_EQUAL(APR_ARRAY_IDX(f->v.details, 0, wh_problem).field,
                           "/data/wireEventInfo/status");
    CU_ASSERT_EQUAL(f->v.authentic, 1);
}

static void test_method(void)
{
    fixture *f = make("{}");
    f->req.method = "GET";
    expect(f, 405, WH_CODE_METHOD_NOT_ALLOWED);
    CU_ASSERT_STRING_EQUAL(f->v.allow, "POST");
    f->req.method = "post";  /* methods are case-sensitive (RFC 9110) */
    expect(f, 405, WH_CODE_METHOD_NOT_ALLOWED);
    f->req.method = "PUT";
    expect(f, 405, WH_CODE_METHOD_NOT_ALLOWED);
}

static void test_auth_required(void)
{
    fixture *f = make("{}");
    apr_table_unset(f->headers, "Authorization");
    expect(f, 401, WH_CODE_AUTH_REQUIRED);
    CU_ASSERT_STRING_EQUAL(f->v.www_authenticate, "Basic realm=\"wirehook\", charset=\"UTF-8\"");
    apr_table_set(f->headers, "Authorization", "Basic %%%");
    expect(f, 401, WH_CODE_AUTH_REQUIRED);
    apr_table_set(f->headers, "Authorization", "Bearer abc");
    expect(f, 401, WH_CODE_AUTH_REQUIRED);
}

static void test_auth_failed(void)
{
    fixture *f = make("{}");
    apr_table_set(f->headers, "Authorization", "Basic YmFuazI6cHcz");  /* bank2:pw3 */
    expect(f, 401, WH_CODE_AUTH_FAILED);
    CU_ASSERT_PTR_NOT_NULL(f->v.www_authenticate);
    CU_ASSERT_PTR_NULL(strstr(f->v.message, "pw"));
}

static void test_realm_configurable(void)
{
    fixture *f = make("{}");
    f->cfg->auth_realm = "Acme wires";
    f->vf = wh_verifier_create(wh_test_pool(), f->cfg, NULL);
    apr_table_unset(f->headers, "Authorization");
    expect(f, 401, WH_CODE_AUTH_REQUIRED);
    CU_ASSERT_STRING_EQUAL(f->v.www_authenticate, "Basic realm=\"Acme wires\", charset=\"UTF-8\"");
}

static void test_content_type(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    const char *bad[] = { "text/plain", "application/jsonp", "application/x-www-form-urlencoded",
                          "application/json; charset=latin1", "", NULL };
    for (int i = 0; bad[i]; i++) {
        apr_table_set(f->headers, "Content-Type", bad[i]);
        expect(f, 415, WH_CODE_UNSUPPORTED_MEDIA);
    }
    apr_table_unset(f->headers, "Content-Type");
    expect(f, 415, WH_CODE_UNSUPPORTED_MEDIA);
    const char *good[] = { "application/json", "Application/JSON", "application/json; charset=utf-8",
                           "application/json;charset=\"UTF-8\"", " application/json ", NULL };
    for (int i = 0; good[i]; i++) {
        apr_table_set(f->headers, "Content-Type", good[i]);
        expect(f, 200, WH_CODE_ACCEPTED);
    }
}

static void test_content_encoding(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    const char *bad[] = { "gzip", "deflate", "br", "identity, gzip", NULL };
    for (int i = 0; bad[i]; i++) {
        apr_table_set(f->headers, "Content-Encoding", bad[i]);
        expect(f, 415, WH_CODE_UNSUPPORTED_MEDIA);
    }
    const char *good[] = { "identity", " Identity ", "", NULL };
    for (int i = 0; good[i]; i++) {
        apr_table_set(f->headers, "Content-Encoding", good[i]);
        expect(f, 200, WH_CODE_ACCEPTED);
    }
}

static void test_body_too_large_by_length_header(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    f->cfg->max_body_size = 100;
    expect(f, 413, WH_CODE_BODY_TOO_LARGE);
    CU_ASSERT_EQUAL(f->v.close_connection, 1);
    /* The envelope alone decides it, before any body is read. */
    f->req.body = NULL;
    f->req.body_len = 0;
    wh_verdict_init(&f->v, wh_test_pool());
    CU_ASSERT_EQUAL(wh_verify_envelope(f->vf, &f->req, &f->v, wh_test_pool()), 413);
}

static void test_body_too_large_while_reading(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    apr_table_unset(f->headers, "Content-Length");  /* chunked */
    f->cfg->max_body_size = (apr_int64_t)f->req.body_len;
    expect(f, 200, WH_CODE_ACCEPTED);                /* exactly at the limit */
    f->cfg->max_body_size = (apr_int64_t)f->req.body_len - 1;
    expect(f, 413, WH_CODE_BODY_TOO_LARGE);
    f->cfg->max_body_size = 65536;
    f->req.body_overflow = 1;
    expect(f, 413, WH_CODE_BODY_TOO_LARGE);
}

static void test_bad_content_length(void)
{
    fixture *f = make("{}");
    apr_table_set(f->headers, "Content-Length", "12abc");
    expect(f, 400, WH_CODE_BAD_REQUEST);
    apr_table_set(f->headers, "Content-Length", "-1");
    expect(f, 400, WH_CODE_BAD_REQUEST);
}

static void test_timestamp_codes(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    apr_table_unset(f->headers, "X-Timestamp");
    expect(f, 401, WH_CODE_TS_MISSING);
    apr_table_set(f->headers, "X-Timestamp", "");
    expect(f, 401, WH_CODE_TS_MALFORMED);
    apr_table_set(f->headers, "X-Timestamp", "17000000a0");
    expect(f, 401, WH_CODE_TS_MALFORMED);
    apr_table_set(f->headers, "X-Timestamp", "1700000000, 1700000000");  /* repeated header */
    expect(f, 401, WH_CODE_TS_MALFORMED);
    apr_table_set(f->headers, "X-Timestamp", "99999999999999999999");
    expect(f, 401, WH_CODE_TS_MALFORMED);
    /* 18 digits are well-formed (docs/errors.md): too large for any clock */
    apr_table_set(f->headers, "X-Timestamp", "999999999999999999");
    expect(f, 401, WH_CODE_TS_FUTURE);
    apr_table_set(f->headers, "X-Timestamp", "1699999699");
    expect(f, 401, WH_CODE_TS_EXPIRED);
    apr_table_set(f->headers, "X-Timestamp", "1700000301");
    expect(f, 401, WH_CODE_TS_FUTURE);
    /* Within tolerance: the signature decides (it was made for NOW_SEC). */
    apr_table_set(f->headers, "X-Timestamp", "1700000001");
    expect(f, 401, WH_CODE_SIG_MISMATCH);
}

static void test_milliseconds_timestamp(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    apr_table_set(f->headers, "X-Timestamp", "1700000000123");
    resign(f);
    expect(f, 200, WH_CODE_ACCEPTED);
    f->cfg->timestamp_unit = WH_TS_SECONDS;
    expect(f, 401, WH_CODE_TS_FUTURE);
}

/* Freshness is judged at wh_request.now, the moment the host had the
 * whole body: a body completed past the tolerance is expired however
 * early its request line came. */
static void test_fresh_when_the_body_is_complete(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    f->cfg->timestamp_tolerance = 3;
    f->req.now = apr_time_from_sec(NOW_SEC + 3);
    expect(f, 200, WH_CODE_ACCEPTED);
    f->req.now = apr_time_from_sec(NOW_SEC + 3) + 1;
    expect(f, 401, WH_CODE_TS_EXPIRED);
}

/* After the record: fresh strictly before signed_at + tolerance, so a
 * copy never meets a record kept until exactly its own moment. */
static void test_fresh_at_the_record(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    apr_time_t until = apr_time_from_sec(NOW_SEC + 300);

    expect(f, 200, WH_CODE_ACCEPTED);
    CU_ASSERT_EQUAL(f->v.facts.signed_at, apr_time_from_sec(NOW_SEC));
    CU_ASSERT_EQUAL(wh_verify_fresh_at(f->vf, &f->v, apr_time_from_sec(NOW_SEC)), 1);
    CU_ASSERT_EQUAL(wh_verify_fresh_at(f->vf, &f->v, until - 1), 1);
    CU_ASSERT_EQUAL(wh_verify_fresh_at(f->vf, &f->v, until), 0);
    CU_ASSERT_EQUAL(wh_verify_fresh_at(f->vf, &f->v, until + apr_time_from_sec(60)), 0);
    f->cfg->timestamp_tolerance = 3;
    CU_ASSERT_EQUAL(wh_verify_fresh_at(f->vf, &f->v, apr_time_from_sec(NOW_SEC + 3) - 1), 1);
    CU_ASSERT_EQUAL(wh_verify_fresh_at(f->vf, &f->v, apr_time_from_sec(NOW_SEC + 3)), 0);
}

static void test_custom_header_names(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    f->cfg->timestamp_header = "X-Bank-Time";
    f->cfg->signature_header = "X-Bank-Sig";
    expect(f, 401, WH_CODE_TS_MISSING);
    apr_table_set(f->headers, "x-bank-time", apr_table_get(f->headers, "X-Timestamp"));
    expect(f, 401, WH_CODE_SIG_MISSING);
    apr_table_set(f->headers, "X-BANK-SIG", apr_table_get(f->headers, "X-Signature"));
    expect(f, 200, WH_CODE_ACCEPTED);
}

static void test_signature_codes(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    const char *good = apr_pstrdup(wh_test_pool(), apr_table_get(f->headers, "X-Signature"));
    apr_table_unset(f->headers, "X-Signature");
    expect(f, 401, WH_CODE_SIG_MISSING);
    apr_table_set(f->headers, "X-Signature", apr_pstrndup(wh_test_pool(), good, 63));
    expect(f, 401, WH_CODE_SIG_MALFORMED);
    apr_table_set(f->headers, "X-Signature", apr_pstrcat(wh_test_pool(), good, "a", NULL));
    expect(f, 401, WH_CODE_SIG_MALFORMED);
    apr_table_set(f->headers, "X-Signature", apr_pstrcat(wh_test_pool(), "sha256=", good, NULL));
    expect(f, 401, WH_CODE_SIG_MALFORMED);
    char *flipped = apr_pstrdup(wh_test_pool(), good);
    flipped[10] = flipped[10] == '0' ? '1' : '0';
    apr_table_set(f->headers, "X-Signature", flipped);
    expect(f, 401, WH_CODE_SIG_MISMATCH);
    CU_ASSERT_EQUAL(f->v.authentic, 0);
    char *upper = apr_pstrdup(wh_test_pool(), good);
    for (char *c = upper; *c; c++)
        *c = (char)apr_toupper(*c);
    apr_table_set(f->headers, "X-Signature", upper);
    expect(f, 200, WH_CODE_ACCEPTED);
}

static void test_signature_covers_url_and_body(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    f->req.url = "http://hooks.example.com/v1/wires";
    expect(f, 401, WH_CODE_SIG_MISMATCH);
    f->req.url = URL;
    char *body = apr_pstrdup(wh_test_pool(), f->req.body);
    body[strlen(body) - 2] = ' ';   /* whitespace change: bytes differ */
    f->req.body = body;
    expect(f, 401, WH_CODE_SIG_MISMATCH);
}

static void test_rotation_old_secret_still_accepted(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    apr_table_set(f->headers, "X-Signature",
                  sign(OLD_SECRET, "POST", URL, f->req.body, apr_table_get(f->headers, "X-Timestamp")));
    expect(f, 200, WH_CODE_ACCEPTED);
    apr_table_set(f->headers, "X-Signature",
                  sign("unknown-key", "POST", URL, f->req.body, apr_table_get(f->headers, "X-Timestamp")));
    expect(f, 401, WH_CODE_SIG_MISMATCH);
}

static void test_mismatch_debug_log_has_no_secret(void)
{
    fixture *f = make(sample_body("wire-status-complete.json"));
    const char *expected = apr_pstrdup(wh_test_pool(), apr_table_get(f->headers, "X-Signature"));
    f->req.url = "https://other.example.com/";
    expect(f, 401, WH_CODE_SIG_MISMATCH);
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, "url=https://other.example.com/"));
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, "timestamp=1700000000"));
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, apr_psprintf(wh_test_pool(), "body_length=%" APR_SIZE_T_FMT, f->req.body_len)));
    CU_ASSERT_PTR_NULL(strstr(f->log, SECRET));
    CU_ASSERT_PTR_NULL(strstr(f->log, OLD_SECRET));
    CU_ASSERT_PTR_NULL(strstr(f->log, expected));
    const char *json = wh_verdict_error_json(wh_test_pool(), &f->v);
    CU_ASSERT_PTR_NULL(strstr(json, SECRET));
    CU_ASSERT_PTR_NULL(strstr(json, expected));
}

static void test_invalid_json_after_signature(void)
{
    fixture *f = make("{\"a\":1} trailing");
    expect(f, 400, WH_CODE_INVALID_JSON);
    CU_ASSERT_EQUAL(f->v.authentic, 1);
    f = make("");
    expect(f, 400, WH_CODE_INVALID_JSON);
    f = make("{\"a\":\"\xff\"}");
    expect(f, 400, WH_CODE_INVALID_JSON);
}

static void test_schema_violation_lists_every_problem(void)
{
    fixture *f = make("{\"notificationId\":\"nope\",\"eventType\":\"wire.status\","
                      "\"eventDateTime\":\"yesterday\",\"data\":{\"wireEventInfo\":{\"status\":\"Complete\"}}}");
    expect(f, 400, WH_CODE_SCHEMA_VIOLATION);
    CU_ASSERT_EQUAL(f->v.details->nelts, 3);
    const char *json = wh_verdict_error_json(wh_test_pool(), &f->v);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"/notificationId\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"/eventDateTime\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"/data/wireEventInfo/paymentId\""));
}

static void test_check_order(void)
{
    /* Everything wrong at once: the first check in the order reports. */
    fixture *f = make("not json");
    apr_table_unset(f->headers, "Authorization");
    apr_table_set(f->headers, "Content-Type", "text/plain");
    apr_table_unset(f->headers, "X-Timestamp");
    f->req.method = "GET";
    expect(f, 405, WH_CODE_METHOD_NOT_ALLOWED);
    f->req.method = "POST";
    expect(f, 401, WH_CODE_AUTH_REQUIRED);
    apr_table_set(f->headers, "Authorization", "Basic YmFuazI6cHcy");
    expect(f, 415, WH_CODE_UNSUPPORTED_MEDIA);
    apr_table_set(f->headers, "Content-Type", "application/json");
    f->cfg->max_body_size = 3;
    expect(f, 413, WH_CODE_BODY_TOO_LARGE);
    f->cfg->max_body_size = 65536;
    expect(f, 401, WH_CODE_TS_MISSING);
    apr_table_set(f->headers, "X-Timestamp", "1700000000");
    apr_table_unset(f->headers, "X-Signature");
    expect(f, 401, WH_CODE_SIG_MISSING);
    resign(f);
    expect(f, 400, WH_CODE_INVALID_JSON);
}

static void test_other_event_type_envelope_only(void)
{
    fixture *f = make("{\"notificationId\":\"0b0f6d5e-6a5a-4c1e-9b1e-2f4a3c2d1e0f\","
                      "\"eventType\":\"wire.other\",\"eventDateTime\":\"2026-11-22T14:05:09.123-05:00\","
                      "\"data\":{\"anything\":true}}");
    expect(f, 200, WH_CODE_ACCEPTED);
    CU_ASSERT_STRING_EQUAL(f->v.facts.event_type, "wire.other");
    CU_ASSERT_PTR_NULL(f->v.facts.payment_id);
}

static void test_request_url(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_config *cfg = wh_config_create(p);
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "https", "hooks.example.com:8443", "/v1/wire?tenant=7"),
                           "https://hooks.example.com:8443/v1/wire?tenant=7");
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "127.0.0.1", "/w"), "http://127.0.0.1/w");
    cfg->signed_url_form = WH_URL_PATH;
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "https", "hooks.example.com:8443", "/v1/wire?tenant=7"),
                           "/v1/wire?tenant=7");
    cfg->signed_url = "https://bank-facing.example.com/v1/wires";
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "127.0.0.1:8080", "/w"),
                           "https://bank-facing.example.com/v1/wires");
}

/* An absolute-form request target is the URL the sender addressed: signed
 * as sent (never prefixed with the Host header again), and its path and
 * query for SignedUrlForm path. Anything else is origin-form. */
static void test_request_url_absolute_form(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_config *cfg = wh_config_create(p);
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "127.0.0.1:8080",
                                          "http://127.0.0.1:8080/v1/wires?x=1"),
                           "http://127.0.0.1:8080/v1/wires?x=1");
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "h", "HTTPS://Hooks.example.com/w"),
                           "HTTPS://Hooks.example.com/w");
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "h", "/a://b"), "http://h/a://b");
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "h", "*"), "http://h*");
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "h", ""), "http://h/");
    cfg->signed_url_form = WH_URL_PATH;
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "h", "http://h:81/v1/wires?x=1"),
                           "/v1/wires?x=1");
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "h", "http://h:81?x=1"), "/?x=1");
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "h", "http://h:81"), "/");
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "h", "/v1/wires"), "/v1/wires");
    CU_ASSERT_STRING_EQUAL(wh_request_url(p, cfg, "http", "h", "1http://h/w"), "1http://h/w");
}

static void test_error_json_shape(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_verdict v;
    wh_verdict_init(&v, p);
    wh_verdict_fail(&v, 400, WH_CODE_SCHEMA_VIOLATION, "bad \"quote\"");
    wh_verdict_add_problem(&v, p, "/a~1b", "must be a string");
    CU_ASSERT_STRING_EQUAL(wh_verdict_error_json(p, &v),
        "{\"error\":{\"code\":\"schema_violation\",\"message\":\"bad \\\"quote\\\"\","
        "\"details\":[{\"field\":\"/a~1b\",\"problem\":\"must be a string\"}]}}");
    CU_ASSERT_STRING_EQUAL(wh_ack_json(p, "duplicate", "x"),
                           "{\"status\":\"duplicate\",\"notificationId\":\"x\"}");
    CU_ASSERT_STRING_EQUAL(wh_error_json(p, "inbox_unavailable", "down"),
        "{\"error\":{\"code\":\"inbox_unavailable\",\"message\":\"down\",\"details\":[]}}");
}

static void test_response_from_verdict(void)
{
    fixture *f = make("{}");
    wh_response r;
    f->req.method = "DELETE";
    run(f);
    wh_response_from_verdict(wh_test_pool(), &f->v, &r);
    CU_ASSERT_EQUAL(r.status, 405);
    CU_ASSERT_STRING_EQUAL(r.allow, "POST");
    CU_ASSERT_STRING_EQUAL(r.content_type, "application/json");
    CU_ASSERT_STRING_EQUAL(wh_status_reason(401), "Unauthorized");
    CU_ASSERT_STRING_EQUAL(wh_status_reason(413), "Content Too Large");
}

/* Every 503 says when to come back: the time given, else the default. */
static void test_retry_after(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_verdict v;
    wh_response r;

    CU_ASSERT_EQUAL(wh_retry_after(apr_time_from_sec(2)), 2);
    CU_ASSERT_EQUAL(wh_retry_after(apr_time_from_msec(2001)), 3);   /* up */
    CU_ASSERT_EQUAL(wh_retry_after(1), 1);
    CU_ASSERT_EQUAL(wh_retry_after(0), WH_RETRY_AFTER_UNKNOWN);
    CU_ASSERT_EQUAL(wh_retry_after(-5), WH_RETRY_AFTER_UNKNOWN);
    CU_ASSERT_EQUAL(wh_retry_after(apr_time_from_sec(86400)), WH_RETRY_AFTER_MAX);

    wh_verdict_init(&v, p);
    CU_ASSERT_EQUAL(wh_verdict_unavailable(&v, WH_CODE_INBOX_UNAVAILABLE, "down",
                                           apr_time_from_sec(7)), 503);
    CU_ASSERT_FALSE(v.ok);
    wh_response_from_verdict(p, &v, &r);
    CU_ASSERT_EQUAL(r.status, 503);
    CU_ASSERT_EQUAL(r.retry_after, 7);
    ASSERT_STR(r.body, "{\"error\":{\"code\":\"inbox_unavailable\",\"message\":"
                       "\"down\",\"details\":[]}}");
    /* a 503 however built: the default when nobody said */
    wh_verdict_init(&v, p);
    wh_verdict_fail(&v, 503, WH_CODE_INTERNAL, "x");
    wh_response_from_verdict(p, &v, &r);
    CU_ASSERT_EQUAL(r.retry_after, WH_RETRY_AFTER_UNKNOWN);
    wh_response_error(p, 503, WH_CODE_INBOX_UNAVAILABLE, "x", &r);
    CU_ASSERT_EQUAL(r.retry_after, WH_RETRY_AFTER_UNKNOWN);
    wh_response_unavailable(p, WH_CODE_INBOX_UNAVAILABLE, "x", apr_time_from_sec(2), &r);
    CU_ASSERT_EQUAL(r.status, 503);
    CU_ASSERT_EQUAL(r.retry_after, 2);
    /* nothing else has one */
    wh_response_error(p, 500, WH_CODE_INTERNAL, "x", &r);
    CU_ASSERT_EQUAL(r.retry_after, 0);
    wh_verdict_init(&v, p);
    wh_verdict_fail(&v, 401, WH_CODE_AUTH_FAILED, "x");
    wh_response_from_verdict(p, &v, &r);
    CU_ASSERT_EQUAL(r.retry_after, 0);
    wh_response_ack(p, WH_CODE_ACCEPTED, "x", &r);
    CU_ASSERT_EQUAL(r.retry_after, 0);
}

/* A duplicate is a verdict too: not handed on, answered 200 as an ack. */
static void test_duplicate_verdict(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_verdict v;
    wh_response r;

    wh_verdict_init(&v, p);
    v.facts.notification_id = "n-1";
    wh_verdict_duplicate(&v);
    CU_ASSERT_FALSE(v.ok);
    CU_ASSERT_EQUAL(v.status, 200);
    ASSERT_STR(v.code, "duplicate");
    wh_response_from_verdict(p, &v, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_EQUAL(r.retry_after, 0);
    ASSERT_STR(r.body, "{\"status\":\"duplicate\",\"notificationId\":\"n-1\"}");
}

/* A database driver's message reaches a log line as one bounded line. */
static void test_foreign_message_one_line(void)
{
    apr_pool_t *p = wh_test_pool();
    char *big = apr_palloc(p, WH_LOG_FOREIGN_MAX + 50);
    const char *line;

    CU_ASSERT_STRING_EQUAL(wh_log_one_line(p, NULL), "unknown error");
    CU_ASSERT_STRING_EQUAL(wh_log_one_line(p, ""), "unknown error");
    CU_ASSERT_STRING_EQUAL(wh_log_one_line(p, "ERROR:  relation \"x\" does not exist\n"
                                           "LINE 1: SELECT\t1\r\n"),
                           "ERROR:  relation \"x\" does not exist LINE 1: SELECT 1");
    memset(big, 'a', WH_LOG_FOREIGN_MAX + 49);
    big[WH_LOG_FOREIGN_MAX + 49] = '\0';
    line = wh_log_one_line(p, big);
    CU_ASSERT_EQUAL(strlen(line), WH_LOG_FOREIGN_MAX);
}

static const wh_test_case cases[] = {
    { "accepts the sample, reports facts", test_accepts_sample_with_facts },
    { "Processed accepted and flagged", test_processed_accepted_and_flagged },
    { "UnknownStatus reject", test_processed_rejected_when_configured },
    { "405 method_not_allowed", test_method },
    { "401 auth_required", test_auth_required },
    { "401 auth_failed", test_auth_failed },
    { "AuthRealm in WWW-Authenticate", test_realm_configurable },
    { "415 unsupported_media_type", test_content_type },
    { "415 for Content-Encoding", test_content_encoding },
    { "413 from Content-Length", test_body_too_large_by_length_header },
    { "413 while reading", test_body_too_large_while_reading },
    { "400 bad Content-Length", test_bad_content_length },
    { "timestamp codes", test_timestamp_codes },
    { "millisecond timestamps", test_milliseconds_timestamp },
    { "freshness judged when the body is complete", test_fresh_when_the_body_is_complete },
    { "freshness again at the replay record", test_fresh_at_the_record },
    { "custom header names", test_custom_header_names },
    { "signature codes", test_signature_codes },
    { "signature covers URL and body", test_signature_covers_url_and_body },
    { "rotation", test_rotation_old_secret_still_accepted },
    { "mismatch debug log has no secret", test_mismatch_debug_log_has_no_secret },
    { "400 invalid_json", test_invalid_json_after_signature },
    { "400 schema_violation lists all", test_schema_violation_lists_every_problem },
    { "checks run in the documented order", test_check_order },
    { "other event types: envelope only", test_other_event_type_envelope_only },
    { "signed URL from the request", test_request_url },
    { "absolute-form request target: the URL as sent", test_request_url_absolute_form },
    { "error JSON shape", test_error_json_shape },
    { "response from verdict", test_response_from_verdict },
    { "every 503 says when to come back", test_retry_after },
    { "a duplicate is answered from its verdict", test_duplicate_verdict },
    { "a driver's message logged as one bounded line", test_foreign_message_one_line },
    { NULL, NULL }
};
WH_TEST_SUITE(verify, cases)
