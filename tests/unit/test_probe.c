/* wirehook probe's core: the vectors file loads and every mistake in one
 * is named; each transformation builds the request docs/probe.md says;
 * the core's own verifier answers every vector as the vector expects
 * (the probes and the receiver agree, in process); grading, the
 * statistics, and the report (order, exit status, JSON, JUnit, text)
 * with no password in any of them. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "probe/wh_probe.h"
#include "verify/wh_verify.h"
#include "verify/wh_signature.h"
#include <apr_base64.h>
#include <apr_strings.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define SECRET "probe-unit-secret"
#define USER "bank2"
#define PASSWORD "pw2"
#define TARGET "https://hooks.example.com/v1/wires"
#define NOW apr_time_from_sec(1700000000)

/* ------------------------------------------------------------- fixture --- */

static const char *vectors_text(apr_size_t *len)
{
    /* the repository's file: the unit tests run from the top of the tree */
    return wh_test_slurp("probe/vectors.json", len);
}

static wh_probe_set *load_set(void)
{
    apr_size_t len = 0;
    const char *text = vectors_text(&len);
    wh_probe_set *set = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    const char *err = wh_probe_set_load(wh_test_pool(), text, len, &set);
    if (err)
        fprintf(stderr, "  %s\n", err);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    return set;
}

static const wh_probe *find(const wh_probe_set *set, const char *id)
{
    for (int i = 0; i < set->probes->nelts; i++) {
        const wh_probe *pr = APR_ARRAY_IDX(set->probes, i, const wh_probe *);
        if (strcmp(pr->id, id) == 0)
            return pr;
    }
    fprintf(stderr, "  no probe %s\n", id);
    return NULL;
}

/* Deterministic "random" bytes: a counter, so requests are reproducible. */
static void counter_bytes(void *ctx, unsigned char *buf, apr_size_t n)
{
    unsigned *c = ctx;
    for (apr_size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)((*c)++ * 37u + 11u);
}

static unsigned counter;

static wh_config *make_cfg(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_config *cfg = wh_config_create(p);
    cfg->secrets = apr_array_make(p, 1, sizeof(wh_secret));
    wh_secret *s = apr_array_push(cfg->secrets);
    s->key = (const unsigned char *)SECRET;
    s->len = strlen(SECRET);
    cfg->users = apr_hash_make(p);
    apr_hash_set(cfg->users, USER, APR_HASH_KEY_STRING,
                 "{SHA}8Wyi36Noi/CMek4hVErxW9WYy3A="); /* pw2 */
    return cfg;
}

static wh_probe_ctx make_ctx(const wh_config *cfg)
{
    wh_probe_ctx c;
    memset(&c, 0, sizeof(c));
    c.cfg = cfg;
    c.secret = (const unsigned char *)SECRET;
    c.secret_len = strlen(SECRET);
    c.signed_url = wh_probe_signed_url(wh_test_pool(), cfg, TARGET);
    c.user = USER;
    c.password = PASSWORD;
    c.slow_seconds = 4;
    counter = 1;
    c.random = counter_bytes;
    c.random_ctx = &counter;
    return c;
}

static wh_probe_req *build(const wh_probe_ctx *c, const wh_probe_set *set,
                           const char *id)
{
    const wh_probe *pr = find(set, id);
    wh_probe_req *req = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
    const char *err = wh_probe_build(wh_test_pool(), c, set, pr->parts, NOW,
                                     &req);
    if (err)
        fprintf(stderr, "  %s: %s\n", id, err);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(req);
    return req;
}

/* Every value of the header name, in order, joined by ", " as httpd does;
 * NULL when absent. */
static const char *header_of(const wh_probe_req *req, const char *name)
{
    const char *v = NULL;
    for (int i = 0; i < req->headers->nelts; i++) {
        const wh_probe_header *h = &APR_ARRAY_IDX(req->headers, i,
                                                  wh_probe_header);
        if (strcasecmp(h->name, name) == 0)
            v = v ? apr_pstrcat(wh_test_pool(), v, ", ", h->value, NULL)
                  : h->value;
    }
    return v;
}

static int count_headers(const wh_probe_req *req, const char *name)
{
    int n = 0;
    for (int i = 0; i < req->headers->nelts; i++)
        n += strcasecmp(APR_ARRAY_IDX(req->headers, i, wh_probe_header).name,
                        name)
             == 0;
    return n;
}

static const char *lookup(void *ctx, const char *name)
{
    const wh_probe_req *req = ctx;
    if (strcasecmp(name, "Content-Length") == 0)
        return apr_psprintf(wh_test_pool(), "%" APR_SIZE_T_FMT, req->body_len);
    return header_of(req, name);
}

static void quiet(void *baton, wh_log_level level, const char *msg)
{
    (void)baton;
    (void)level;
    (void)msg;
}

/* The core's verdict on req, judged at `at` (the body's last byte). */
static int verify_req(const wh_config *cfg, const wh_probe_req *req,
                      apr_time_t at, wh_verdict *v)
{
    apr_pool_t *p = wh_test_pool();
    wh_logger lg = {quiet, NULL};
    wh_verifier *vf = wh_verifier_create(p, cfg, &lg);
    wh_request r;
    memset(&r, 0, sizeof(r));
    r.method = req->method;
    r.url = wh_probe_signed_url(p, cfg, TARGET); /* what arrived */
    r.header = lookup;
    r.header_ctx = (void *)req;
    r.body = req->body;
    r.body_len = req->body_len;
    r.body_overflow = req->body_len > (apr_size_t)cfg->max_body_size;
    r.now = at;
    wh_verdict_init(v, p);
    return wh_verify(vf, &r, v, p);
}

/* ------------------------------------------------------------- loading --- */

static void test_vectors_load(void)
{
    wh_probe_set *set = load_set();
    CU_ASSERT_EQUAL(set->version, WH_PROBE_VECTORS_VERSION);
    CU_ASSERT(set->probes->nelts >= 100);
    /* what the issue asks for, each by its id */
    static const char *const required[] = {"valid",
                                           "status.review",
                                           "status.send_ready",
                                           "status.reject",
                                           "status.error",
                                           "status.exception",
                                           "status.complete",
                                           "status.unknown",
                                           "signature.forged",
                                           "signature.other_secret",
                                           "signature.url_scheme",
                                           "signature.url_host",
                                           "signature.url_port",
                                           "signature.url_path",
                                           "signature.url_query",
                                           "signature.method",
                                           "signature.body_byte",
                                           "signature.truncated",
                                           "signature.hex_63",
                                           "signature.hex_65",
                                           "signature.non_hex",
                                           "signature.uppercase",
                                           "signature.missing",
                                           "signature.repeated",
                                           "timestamp.stale_1s",
                                           "timestamp.stale_10min",
                                           "timestamp.future_1s",
                                           "timestamp.non_digits",
                                           "timestamp.other_unit",
                                           "timestamp.missing",
                                           "timestamp.repeated",
                                           "auth.missing",
                                           "auth.wrong_password",
                                           "auth.unknown_user",
                                           "auth.malformed",
                                           "auth.timing",
                                           "json.not_json",
                                           "json.duplicate_key",
                                           "json.deep_nesting",
                                           "json.invalid_utf8",
                                           "http.oversized",
                                           "http.content_type",
                                           "http.get",
                                           "replay.at_once",
                                           "replay.after_pause",
                                           "slow.late_last_byte",
                                           "slow.stall",
                                           NULL};
    for (const char *const *id = required; *id; id++)
        CU_ASSERT_PTR_NOT_NULL(find(set, *id));
    const wh_probe *forged = find(set, "signature.forged");
    CU_ASSERT_EQUAL(forged->severity, WH_SEV_CRITICAL);
    CU_ASSERT_EQUAL(forged->expect, WH_EXPECT_REFUSED);
    CU_ASSERT_EQUAL(forged->n_statuses, 1);
    const wh_probe *timing = find(set, "auth.timing");
    CU_ASSERT(timing->is_timing);
    CU_ASSERT_EQUAL(timing->severity, WH_SEV_WARNING);
    CU_ASSERT_PTR_NOT_NULL(timing->timing_a);
    CU_ASSERT(timing->significance_z > 0);
    CU_ASSERT_EQUAL(wh_probe_replay_of(find(set, "replay.after_pause")->parts),
                    WH_REPLAY_AFTER_PAUSE);
    CU_ASSERT_EQUAL(wh_probe_pace_of(find(set, "slow.stall")->parts),
                    WH_PACE_STALL);
    /* shifted timestamps go at the start of a second, others at once */
    CU_ASSERT(
        wh_probe_at_second_start(find(set, "timestamp.future_1s")->parts));
    CU_ASSERT(
        wh_probe_at_second_start(find(set, "timestamp.stale_1s")->parts));
    CU_ASSERT(!wh_probe_at_second_start(find(set, "valid")->parts));
    CU_ASSERT(
        !wh_probe_at_second_start(find(set, "timestamp.repeated")->parts));
}

/* The smallest valid file with one probe whose members are given. */
static const char *load_one(const char *probe_members, int version)
{
    const char *doc = apr_psprintf(
        wh_test_pool(),
        "{\"format\":\"wirehook-probe-vectors\",\"version\":%d,"
        "\"other_secret\":\"x\",\"notification\":{\"notificationId\":\"a\"},"
        "\"probes\":[{\"id\":\"g.one\",\"description\":\"d\","
        "\"severity\":\"high\",\"expect\":\"refused\"%s%s}]}",
        version, *probe_members ? "," : "", probe_members);
    wh_probe_set *set;
    return wh_probe_set_load(wh_test_pool(), doc, strlen(doc), &set);
}

static void expect_error(const char *members, const char *needle)
{
    const char *err = load_one(members, 1);
    if (!contains(err, needle))
        fprintf(stderr, "  [%s]: expected '%s' in [%s]\n", members, needle,
                err ? err : "(no error)");
    CU_ASSERT(contains(err, needle));
}

static void test_vectors_errors(void)
{
    CU_ASSERT_PTR_NULL(load_one("", 1));
    CU_ASSERT(
        contains(load_one("", 2), "version 2: this runner reads version 1"));
    expect_error("\"bogus\":1",
                 "probes[0] (g.one): probe: unknown member 'bogus'");
    expect_error("\"signature\":{\"op\":\"randum\"}",
                 "signature: unknown op 'randum'");
    expect_error("\"signature\":{\"op\":\"truncate\",\"length\":64}",
                 "'length' must be 0 to 63");
    expect_error("\"body\":[{\"op\":\"set\",\"at\":\"x\",\"value\":1}]",
                 "body[0]: 'at' must be a JSON pointer");
    expect_error("\"body\":[{\"op\":\"set\",\"at\":\"/x\"}]",
                 "'value' is required");
    expect_error("\"body\":[{\"op\":\"raw\",\"text\":\"a\"},"
                 "{\"op\":\"remove\",\"at\":\"/a\"}]",
                 "body[1]: a JSON op after an op on the bytes");
    expect_error("\"body\":[{\"op\":\"raw\",\"hex\":\"0g\"}]",
                 "'hex' must be a string of hex digit pairs");
    expect_error("\"body\":[{\"op\":\"raw\",\"text\":\"a\",\"hex\":\"00\"}]",
                 "exactly one of 'text' and 'hex'");
    expect_error(
        "\"body\":[{\"op\":\"pad\",\"at\":\"/p\",\"beyond_max_body_size\":1},"
        "{\"op\":\"remove\",\"at\":\"/a\"}]",
        "pad must be the last op");
    expect_error(
        "\"body\":[{\"op\":\"duplicate\",\"at\":\"/a/b\",\"value\":1}]",
        "a member of the root only");
    expect_error("\"replay\":\"at_once\"", "once goes with replay");
    expect_error("\"pace\":\"stall\"", "ends goes with pace stall");
    expect_error("\"pace\":\"late_last_byte\",\"timestamp\":{\"omit\":true}",
                 "late_last_byte sets the timestamp itself");
    expect_error("\"timestamp\":{\"omit\":true,\"suffix\":\"x\"}",
                 "'omit' goes alone");
    expect_error("\"timestamp\":{\"repeat\":{\"repeat\":{}}}",
                 "a repeat cannot repeat");
    expect_error("\"sign\":{\"url\":\"fragment\"}", "'url' must be one of");
    expect_error("\"auth\":\"maybe\"", "auth: unknown value 'maybe'");
    expect_error("\"method\":\"PO ST\"", "must be an HTTP method name");
    expect_error("\"auth\":{\"header\":\"Basic x\\r\\nX-Extra: 1\"}",
                 "auth: a header value holds no control characters");
    expect_error("\"status\":[99]", "must be an HTTP status code");
    expect_error("\"kind\":\"timing\"", "goes with kind timing");
    expect_error("\"expect\":{\"config\":\"MaxBodySize\"}",
                 "no expectation by the key");
    /* the whole file */
    wh_probe_set *set;
    CU_ASSERT(contains(wh_probe_set_load(wh_test_pool(), "[]", 2, &set),
                       "not a JSON object"));
    CU_ASSERT(contains(wh_probe_set_load(wh_test_pool(), "{} x", 4, &set),
                       "not JSON"));
    const char *two =
        "{\"format\":\"wirehook-probe-vectors\",\"version\":1,"
        "\"other_secret\":\"x\",\"notification\":{},\"probes\":["
        "{\"id\":\"a\",\"description\":\"d\",\"severity\":\"info\","
        "\"expect\":\"refused\"},"
        "{\"id\":\"a\",\"description\":\"d\",\"severity\":\"worst\","
        "\"expect\":\"refused\"}]}";
    const char *err = wh_probe_set_load(wh_test_pool(), two, strlen(two),
                                        &set);
    CU_ASSERT(contains(err, "probes[1] (a): id: used twice"));
    CU_ASSERT(
        contains(err, "severity: must be critical, high, warning or info"));
}

static void test_selection(void)
{
    wh_probe_set *set = load_set();
    CU_ASSERT(wh_probe_selected(NULL, "signature.forged"));
    CU_ASSERT(wh_probe_selected("signature", "signature.forged"));
    CU_ASSERT(wh_probe_selected("valid,signature.forged", "signature.forged"));
    CU_ASSERT(!wh_probe_selected("signature.forge", "signature.forged"));
    CU_ASSERT(!wh_probe_selected("sig", "signature.forged"));
    CU_ASSERT(wh_probe_selected("schema.originator",
                                "schema.originator.name.empty"));
    CU_ASSERT_PTR_NULL(
        wh_probe_unmatched(wh_test_pool(), set, "valid,schema.originator"));
    ASSERT_STR(wh_probe_unmatched(wh_test_pool(), set, "valid,nosuch,sig"),
               "nosuch,sig");
}

static void test_expectation_by_config(void)
{
    wh_probe_set *set = load_set();
    wh_config *cfg = make_cfg();
    const wh_probe *unknown = find(set, "status.unknown");
    const wh_probe *unit = find(set, "timestamp.other_unit");
    CU_ASSERT_EQUAL(wh_probe_expectation(unknown, cfg), WH_EXPECT_ACCEPTED);
    cfg->unknown_status_reject = 1;
    CU_ASSERT_EQUAL(wh_probe_expectation(unknown, cfg), WH_EXPECT_REFUSED);
    CU_ASSERT_EQUAL(wh_probe_expectation(unit, cfg), WH_EXPECT_ACCEPTED);
    cfg->timestamp_unit = WH_TS_SECONDS;
    CU_ASSERT_EQUAL(wh_probe_expectation(unit, cfg), WH_EXPECT_REFUSED);
    cfg->timestamp_unit = WH_TS_MILLISECONDS;
    CU_ASSERT_EQUAL(wh_probe_expectation(unit, cfg), WH_EXPECT_REFUSED);
}

/* ------------------------------------------------- the core agrees --- */

/* Every vector the core can judge in process (not a replay, a stall or
 * timing), under cfg: the verdict's class is the expected one, and a
 * refusal has a status the vector names. */
static void agree_under(wh_config *cfg, const char *label)
{
    wh_probe_set *set = load_set();
    wh_probe_ctx c = make_ctx(cfg);
    int judged = 0;

    for (int i = 0; i < set->probes->nelts; i++) {
        const wh_probe *pr = APR_ARRAY_IDX(set->probes, i, const wh_probe *);
        wh_probe_pace pace = wh_probe_pace_of(pr->parts);
        if (pr->is_timing || wh_probe_replay_of(pr->parts)
            || pace == WH_PACE_STALL)
            continue;
        wh_probe_req *req = NULL;
        CU_ASSERT_PTR_NULL(
            wh_probe_build(wh_test_pool(), &c, set, pr->parts, NOW, &req));
        CU_ASSERT_PTR_NOT_NULL_FATAL(req);
        if (req->skipped)
            continue;
        wh_verdict v;
        apr_time_t at = pace ? NOW + apr_time_from_sec(c.slow_seconds) : NOW;
        int status = verify_req(cfg, req, at, &v);
        wh_probe_answer a = {status, "", 0, NULL, 0, 0};
        wh_probe_expect e = wh_probe_expectation(pr, cfg);
        wh_probe_class want = e == WH_EXPECT_ACCEPTED ? WH_CLASS_ACCEPTED
                                                      : WH_CLASS_REFUSED;
        int listed = !pr->n_statuses || want == WH_CLASS_ACCEPTED;
        for (int k = 0; k < pr->n_statuses; k++)
            listed |= pr->statuses[k] == status;
        if (wh_probe_class_of(&a) != want || !listed)
            fprintf(stderr,
                    "  [%s] %s: expected %s, the core answered %d %s\n", label,
                    pr->id, wh_probe_expect_name(e), status,
                    v.code ? v.code : "");
        CU_ASSERT_EQUAL(wh_probe_class_of(&a), want);
        CU_ASSERT(listed);
        judged++;
    }
    CU_ASSERT(judged >= 95);
}

static void test_core_agrees(void)
{
    agree_under(make_cfg(), "defaults");
}

static void test_core_agrees_other_settings(void)
{
    wh_config *cfg = make_cfg();
    cfg->unknown_status_reject = 1;
    cfg->timestamp_unit = WH_TS_SECONDS;
    cfg->timestamp_tolerance = 60;
    cfg->max_body_size = 4096;
    cfg->timestamp_header = "X-Bank-Time";
    cfg->signature_header = "X-Bank-Sig";
    agree_under(cfg, "reject, seconds, 60 s, 4 KiB, other headers");
    cfg = make_cfg();
    cfg->timestamp_unit = WH_TS_MILLISECONDS;
    cfg->signed_url_form = WH_URL_PATH;
    agree_under(cfg, "milliseconds, path form");
}

/* ---------------------------------------------------------- requests --- */

static void test_build_valid(void)
{
    wh_probe_set *set = load_set();
    wh_config *cfg = make_cfg();
    wh_probe_ctx c = make_ctx(cfg);
    wh_probe_req *req = build(&c, set, "valid");

    ASSERT_STR(req->method, "POST");
    ASSERT_STR(c.signed_url, TARGET);
    ASSERT_STR(header_of(req, "Content-Type"), "application/json");
    ASSERT_STR(header_of(req, "X-Timestamp"), "1700000000");
    /* the signature is the HMAC of exactly what was sent */
    unsigned char raw[WH_SIG_RAW_LEN];
    char hex[65];
    wh_signature_compute((const unsigned char *)SECRET, strlen(SECRET), "POST",
                         TARGET, req->body, req->body_len, "1700000000", raw);
    wh_signature_hex(raw, hex);
    ASSERT_STR(header_of(req, "X-Signature"), hex);
    /* Basic credentials sent, but never shown */
    ASSERT_STR(header_of(req, "Authorization"), "Basic YmFuazI6cHcy");
    for (int i = 0; i < req->headers->nelts; i++)
        CU_ASSERT(
            !contains(APR_ARRAY_IDX(req->headers, i, wh_probe_header).shown,
                      "YmFuazI6cHcy"));
    /* a fresh notification: a UUID v4 and now */
    CU_ASSERT_EQUAL(strlen(req->notification_id), 36);
    CU_ASSERT_EQUAL(req->notification_id[14], '4');
    CU_ASSERT(contains(req->body, req->notification_id));
    CU_ASSERT(
        contains(req->body, "\"eventDateTime\":\"2023-11-14T22:13:20Z\""));
    ASSERT_STR(req->signed_with, "the signing secret");
    CU_ASSERT(!req->signed_body_differs);
    /* the next request has another id */
    wh_probe_req *next = build(&c, set, "valid");
    CU_ASSERT(strcmp(next->notification_id, req->notification_id) != 0);
}

static void test_build_timestamps(void)
{
    wh_probe_set *set = load_set();
    wh_config *cfg = make_cfg();
    wh_probe_ctx c = make_ctx(cfg);

    ASSERT_STR(header_of(build(&c, set, "timestamp.stale_1s"), "X-Timestamp"),
               "1699999699");
    ASSERT_STR(
        header_of(build(&c, set, "timestamp.stale_10min"), "X-Timestamp"),
        "1699999100");
    ASSERT_STR(header_of(build(&c, set, "timestamp.future_1s"), "X-Timestamp"),
               "1700000301");
    ASSERT_STR(
        header_of(build(&c, set, "timestamp.non_digits"), "X-Timestamp"),
        "1700000000.0");
    ASSERT_STR(
        header_of(build(&c, set, "timestamp.other_unit"), "X-Timestamp"),
        "1700000000000");
    CU_ASSERT_PTR_NULL(
        header_of(build(&c, set, "timestamp.missing"), "X-Timestamp"));
    wh_probe_req *rep = build(&c, set, "timestamp.repeated");
    CU_ASSERT_EQUAL(count_headers(rep, "X-Timestamp"), 2);
    ASSERT_STR(header_of(rep, "X-Timestamp"), "1699999100, 1700000000");
    /* late_last_byte: fresh at the start, stale by slow/2 at the end */
    ASSERT_STR(header_of(build(&c, set, "slow.late_last_byte"), "X-Timestamp"),
               "1699999702");
    cfg->timestamp_unit = WH_TS_MILLISECONDS;
    ASSERT_STR(header_of(build(&c, set, "valid"), "X-Timestamp"),
               "1700000000000");
    ASSERT_STR(
        header_of(build(&c, set, "timestamp.other_unit"), "X-Timestamp"),
        "1700000000");
    ASSERT_STR(header_of(build(&c, set, "timestamp.stale_1s"), "X-Timestamp"),
               "1699999699000");
}

static void test_build_signatures(void)
{
    wh_probe_set *set = load_set();
    wh_config *cfg = make_cfg();
    wh_probe_ctx c = make_ctx(cfg);
    const char *valid = header_of(build(&c, set, "valid"), "X-Signature");

    CU_ASSERT_EQUAL(strlen(header_of(build(&c, set, "signature.truncated"),
                                     "X-Signature")),
                    32);
    CU_ASSERT_EQUAL(
        strlen(header_of(build(&c, set, "signature.hex_63"), "X-Signature")),
        63);
    CU_ASSERT_EQUAL(
        strlen(header_of(build(&c, set, "signature.hex_65"), "X-Signature")),
        65);
    const char *nonhex = header_of(build(&c, set, "signature.non_hex"),
                                   "X-Signature");
    CU_ASSERT_EQUAL(strlen(nonhex), 64);
    CU_ASSERT_EQUAL(nonhex[63], 'z');
    CU_ASSERT(
        strncmp(header_of(build(&c, set, "signature.prefixed"), "X-Signature"),
                "sha256=", 7)
        == 0);
    const char *upper = header_of(build(&c, set, "signature.uppercase"),
                                  "X-Signature");
    for (const char *u = upper; *u; u++)
        CU_ASSERT(!(*u >= 'a' && *u <= 'f'));
    CU_ASSERT_PTR_NULL(
        header_of(build(&c, set, "signature.missing"), "X-Signature"));
    CU_ASSERT_EQUAL(
        count_headers(build(&c, set, "signature.repeated"), "X-Signature"), 2);
    CU_ASSERT_EQUAL(
        strlen(header_of(build(&c, set, "signature.forged"), "X-Signature")),
        64);
    CU_ASSERT_EQUAL(strlen(valid), 64);
    /* over something else than what is sent */
    wh_probe_req *q = build(&c, set, "signature.url_host");
    ASSERT_STR(q->signed_url, "https://wirehook-probe.invalid/v1/wires");
    ASSERT_STR(build(&c, set, "signature.url_scheme")->signed_url,
               "http://hooks.example.com/v1/wires");
    ASSERT_STR(build(&c, set, "signature.url_port")->signed_url,
               "https://hooks.example.com:444/v1/wires");
    ASSERT_STR(build(&c, set, "signature.url_path")->signed_url,
               "https://hooks.example.com/v1/wires-probe");
    ASSERT_STR(build(&c, set, "signature.url_query")->signed_url,
               "https://hooks.example.com/v1/wires?probe=1");
    ASSERT_STR(build(&c, set, "signature.method")->signed_method, "PUT");
    ASSERT_STR(build(&c, set, "signature.other_secret")->signed_with,
               "another secret (other_secret)");
    CU_ASSERT(build(&c, set, "signature.body_byte")->signed_body_differs);
    /* a receiver that signs the path only: no scheme, host or port */
    cfg->signed_url_form = WH_URL_PATH;
    c = make_ctx(cfg);
    ASSERT_STR(c.signed_url, "/v1/wires");
    CU_ASSERT(contains(build(&c, set, "signature.url_host")->skipped,
                       "SignedUrlForm path"));
    ASSERT_STR(build(&c, set, "signature.url_query")->signed_url,
               "/v1/wires?probe=1");
}

static void test_build_auth_and_http(void)
{
    wh_probe_set *set = load_set();
    wh_probe_ctx c = make_ctx(make_cfg());

    CU_ASSERT_PTR_NULL(
        header_of(build(&c, set, "auth.missing"), "Authorization"));
    wh_probe_req *wrong = build(&c, set, "auth.wrong_password");
    char dec[256];
    const char *h = header_of(wrong, "Authorization");
    CU_ASSERT(strncmp(h, "Basic ", 6) == 0);
    int n = apr_base64_decode(dec, h + 6);
    dec[n] = '\0';
    CU_ASSERT(strncmp(dec, USER ":wirehook-probe-", strlen(USER) + 16) == 0);
    ASSERT_STR(APR_ARRAY_IDX(wrong->headers, 1, wh_probe_header).shown,
               "Basic (user " USER ", a wrong password)");
    wh_probe_req *unknown = build(&c, set, "auth.unknown_user");
    n = apr_base64_decode(dec, header_of(unknown, "Authorization") + 6);
    dec[n] = '\0';
    CU_ASSERT(strncmp(dec, "wirehook-probe-", 15) == 0);
    ASSERT_STR(header_of(build(&c, set, "auth.malformed"), "Authorization"),
               "Basic !!not-base64!!");
    ASSERT_STR(header_of(build(&c, set, "http.content_type"), "Content-Type"),
               "text/plain");
    wh_probe_req *get = build(&c, set, "http.get");
    ASSERT_STR(get->method, "GET");
    CU_ASSERT_EQUAL(get->headers->nelts, 0);
    CU_ASSERT_EQUAL(get->body_len, 0);
    CU_ASSERT_PTR_NULL(get->signed_url);
}

static void test_build_bodies(void)
{
    wh_probe_set *set = load_set();
    wh_config *cfg = make_cfg();
    wh_probe_ctx c = make_ctx(cfg);

    /* oversized: exactly MaxBodySize + 1, and still a signed notification */
    CU_ASSERT_EQUAL(build(&c, set, "http.oversized")->body_len, 65537);
    cfg->max_body_size = 2000;
    CU_ASSERT_EQUAL(build(&c, set, "http.oversized")->body_len, 2001);
    cfg->max_body_size = 128LL * 1024 * 1024;
    CU_ASSERT_PTR_NOT_NULL(build(&c, set, "http.oversized")->skipped);
    cfg->max_body_size = 65536;
    ASSERT_STR(build(&c, set, "json.not_json")->body, "wire status: Complete");
    wh_probe_req *dup = build(&c, set, "json.duplicate_key");
    const char *twice = "{\"notificationId\":\"00000000-0000-4000-8000-"
                        "000000000000\",\"notificationId\":\"";
    CU_ASSERT(strncmp(dup->body, twice, strlen(twice)) == 0);
    CU_ASSERT(contains(build(&c, set, "json.invalid_utf8")->body,
                       "\"paymentId\":\"WP-\xc3(\""));
    CU_ASSERT(
        contains(build(&c, set, "json.nan")->body, "\"probeNumber\":NaN"));
    CU_ASSERT(strncmp(build(&c, set, "json.bom")->body, "\xef\xbb\xbf{", 4)
              == 0);
    const char *nest = build(&c, set, "json.deep_nesting")->body;
    CU_ASSERT(contains(nest, "\"probeNesting\":[[["));
    const char *deep = strstr(nest, "\"probeNesting\":");
    int depth = 0;
    for (const char *d = deep + 15; *d == '['; d++)
        depth++;
    CU_ASSERT_EQUAL(depth, 64);
    CU_ASSERT(!contains(build(&c, set, "schema.notification_id.missing")->body,
                        "notificationId"));
    const char *chars = build(&c, set, "schema.characters_not_bytes")->body;
    CU_ASSERT(contains(chars, "\"name\":\"\xc3\xa9\xc3\xa9"));
    CU_ASSERT(contains(
        build(&c, set, "schema.remittance_information.length_141")->body,
        "IIIIIIIIII\""));
}

static void test_signed_url(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_config *cfg = make_cfg();
    ASSERT_STR(wh_probe_signed_url(p, cfg, "http://127.0.0.1:8080/hook?a=1"),
               "http://127.0.0.1:8080/hook?a=1");
    /* curl leaves the default port out of Host, and the receiver signs Host */
    ASSERT_STR(wh_probe_signed_url(p, cfg, "https://h.example:443/x"),
               "https://h.example/x");
    ASSERT_STR(wh_probe_signed_url(p, cfg, "HTTP://h.example"),
               "http://h.example/");
    CU_ASSERT_PTR_NULL(wh_probe_signed_url(p, cfg, "ftp://h.example/x"));
    CU_ASSERT_PTR_NULL(wh_probe_signed_url(p, cfg, "/x"));
    cfg->signed_url_form = WH_URL_PATH;
    ASSERT_STR(wh_probe_signed_url(p, cfg, "http://h:81/x?q"), "/x?q");
    cfg->signed_url = "https://public.example/hooks/in";
    ASSERT_STR(wh_probe_signed_url(p, cfg, "http://10.0.0.5:8080/in"),
               "https://public.example/hooks/in");
}

/* ------------------------------------------------------------ grading --- */

static wh_probe_result result_for(const wh_probe *pr, wh_probe_expect e,
                                  const wh_probe_answer *a)
{
    wh_probe_result r;
    memset(&r, 0, sizeof(r));
    r.probe = pr;
    r.expect = e;
    r.answer = a;
    r.deliveries = -1;
    return r;
}

static void test_grade_answers(void)
{
    wh_probe_set *set = load_set();
    apr_pool_t *p = wh_test_pool();
    const wh_probe *forged = find(set, "signature.forged");
    wh_probe_answer ok = {200, "{}", 2, NULL, 0, 1000};
    wh_probe_answer r401 = {401, "no", 2, NULL, 0, 1000};
    wh_probe_answer r403 = {403, "", 0, NULL, 0, 1000};
    wh_probe_answer r500 = {500, "", 0, NULL, 0, 1000};
    wh_probe_answer r302 = {302, "", 0, NULL, 0, 1000};
    wh_probe_answer none = {0, NULL, 0, "Connection reset by peer", 0, 1000};

    CU_ASSERT_EQUAL(wh_probe_class_of(&ok), WH_CLASS_ACCEPTED);
    CU_ASSERT_EQUAL(wh_probe_class_of(&r401), WH_CLASS_REFUSED);
    CU_ASSERT_EQUAL(wh_probe_class_of(&r500), WH_CLASS_RETRY);
    CU_ASSERT_EQUAL(wh_probe_class_of(&r302), WH_CLASS_OTHER);
    CU_ASSERT_EQUAL(wh_probe_class_of(&none), WH_CLASS_NONE);

    wh_probe_result r = result_for(forged, WH_EXPECT_REFUSED, &r401);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_PASS);
    CU_ASSERT_PTR_NULL(r.note);
    r = result_for(forged, WH_EXPECT_REFUSED, &r403);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_PASS);
    ASSERT_STR(r.note, "the spec decisions answer 401");
    r = result_for(forged, WH_EXPECT_REFUSED, &ok);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_FAIL);
    CU_ASSERT_EQUAL(r.severity, WH_SEV_CRITICAL);
    CU_ASSERT(contains(r.message, "accepted: 200 {}"));
    /* the right class in a misleading form: a warning, not a failure */
    r = result_for(forged, WH_EXPECT_REFUSED, &r500);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_WARN);
    CU_ASSERT_EQUAL(r.severity, WH_SEV_WARNING);
    r = result_for(forged, WH_EXPECT_REFUSED, &none);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_WARN);
    CU_ASSERT(contains(r.message, "Connection reset by peer"));
    r = result_for(forged, WH_EXPECT_REFUSED, &r302);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_WARN);
    /* a valid notification refused */
    r = result_for(find(set, "valid"), WH_EXPECT_ACCEPTED, &r401);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_FAIL);
    CU_ASSERT_EQUAL(r.severity, WH_SEV_HIGH);
    /* a stall */
    const wh_probe *stall = find(set, "slow.stall");
    wh_probe_answer open = {
        0, NULL, 0, "still open", 1, apr_time_from_sec(60)};
    r = result_for(stall, WH_EXPECT_ENDS, &open);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_FAIL);
    CU_ASSERT(contains(r.message, "after 60 s"));
    wh_probe_answer r408 = {408, "", 0, NULL, 0, apr_time_from_sec(5)};
    r = result_for(stall, WH_EXPECT_ENDS, &r408);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_PASS);
    r = result_for(stall, WH_EXPECT_ENDS, &none);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_PASS);
    /* skipped, and not sent */
    wh_probe_req skipped;
    memset(&skipped, 0, sizeof(skipped));
    skipped.skipped = "not here";
    r = result_for(forged, WH_EXPECT_REFUSED, NULL);
    r.req = &skipped;
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_SKIPPED);
    r = result_for(forged, WH_EXPECT_REFUSED, NULL);
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_ERROR);
}

static void test_grade_replays(void)
{
    wh_probe_set *set = load_set();
    apr_pool_t *p = wh_test_pool();
    const wh_probe *rp = find(set, "replay.at_once");
    wh_probe_answer first = {200, "{\"app\":1}", 9, NULL, 0, 1000};
    const char *dup_json =
        "{\"status\":\"duplicate\",\"notificationId\":\"x\"}";
    wh_probe_answer dup = {200, dup_json, strlen(dup_json), NULL, 0, 1000};
    wh_probe_answer same = first;
    wh_probe_answer refused = {409, "", 0, NULL, 0, 1000};
    wh_probe_answer busy = {503, "", 0, NULL, 0, 1000};
    wh_probe_answer r401 = {401, "", 0, NULL, 0, 1000};

    wh_probe_result r = result_for(rp, WH_EXPECT_ONCE, &first);
    r.copy = &dup;
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_PASS); /* it says duplicate */
    r.copy = &same;
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_INCONCLUSIVE); /* cannot tell */
    CU_ASSERT(contains(r.message, "--deliveries"));
    r.deliveries = 2;
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_FAIL);
    CU_ASSERT_EQUAL(r.severity, WH_SEV_CRITICAL);
    CU_ASSERT(contains(r.message, "delivered 2 times"));
    r.deliveries = 1;
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_PASS);
    r.deliveries = 0;
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_INCONCLUSIVE);
    r.deliveries = -1;
    r.copy = &refused;
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_WARN);
    CU_ASSERT(contains(r.message, "recorded as a failure"));
    r.copy = &busy;
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_WARN);
    CU_ASSERT(contains(r.message, "the bank would retry it"));
    r.answer = &r401;
    wh_probe_grade(p, &r);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_INCONCLUSIVE);
    CU_ASSERT(contains(r.message, "nothing to replay"));
}

static void test_statistics(void)
{
    apr_pool_t *p = wh_test_pool();
    double a[10], b[10], same[10];
    for (int i = 0; i < 10; i++) {
        a[i] = i + 1;
        b[i] = i + 11;
        same[i] = 5;
    }
    /* a below b entirely: U = 0, z = -(50)/sqrt(175) */
    CU_ASSERT(fabs(wh_probe_mann_whitney_z(p, a, 10, b, 10) + 3.7796) < 1e-3);
    CU_ASSERT(fabs(wh_probe_mann_whitney_z(p, b, 10, a, 10) - 3.7796) < 1e-3);
    CU_ASSERT(fabs(wh_probe_mann_whitney_z(p, a, 10, a, 10)) < 1e-9);
    CU_ASSERT_EQUAL(wh_probe_mann_whitney_z(p, same, 10, same, 10), 0);
    CU_ASSERT_EQUAL(wh_probe_mann_whitney_z(p, a, 0, b, 10), 0);
    CU_ASSERT_EQUAL(wh_probe_median(p, a, 10), 5.5);
    CU_ASSERT_EQUAL(wh_probe_median(p, a, 9), 5);

    wh_probe_set *set = load_set();
    const wh_probe *t = find(set, "auth.timing");
    double slow[20], fast[20], noisy[20];
    for (int i = 0; i < 20; i++) {
        slow[i] = 3000 + 10 * i; /* microseconds */
        fast[i] = 400 + 10 * i;
        noisy[i] = 3000 + 10 * ((i * 7) % 20);
    }
    wh_probe_result r = result_for(t, WH_EXPECT_SAME_TIME, NULL);
    wh_probe_grade_timing(p, &r, slow, 20, fast, 20, 1);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_FAIL);
    CU_ASSERT_EQUAL(r.severity, WH_SEV_WARNING);
    CU_ASSERT(fabs(r.median_a - 3.095) < 1e-9);
    CU_ASSERT(contains(r.message, "tells the two apart"));
    wh_probe_grade_timing(p, &r, slow, 20, noisy, 20, 1);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_PASS);
    /* significant but small: not a finding */
    double near[20];
    for (int i = 0; i < 20; i++)
        near[i] = slow[i] + 200;
    wh_probe_grade_timing(p, &r, slow, 20, near, 20, 1);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_PASS);
    wh_probe_grade_timing(p, &r, slow, 20, fast, 20, 0);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_INCONCLUSIVE);
    wh_probe_grade_timing(p, &r, slow, 4, fast, 4, 1);
    CU_ASSERT_EQUAL(r.outcome, WH_OUT_INCONCLUSIVE);
}

/* ------------------------------------------------------------- report --- */

static wh_probe_report *sample_report(wh_probe_set *set, const wh_config *cfg,
                                      wh_probe_ctx *c)
{
    apr_pool_t *p = wh_test_pool();
    wh_probe_report *rep = apr_pcalloc(p, sizeof(*rep));
    static const char *const ids[] = {"valid",
                                      "schema.payment_amount.one_decimal",
                                      "signature.forged",
                                      "http.content_type",
                                      "signature.missing",
                                      NULL};
    /* valid passes, a high fails, a critical fails, an info fails, and a
     * critical warns (a 500) */
    static wh_probe_answer ans[] = {{200, "{}", 2, NULL, 0, 1000},
                                    {200, "{}", 2, NULL, 0, 1000},
                                    {200, "ok\x01\xff", 4, NULL, 0, 1000},
                                    {200, "", 0, NULL, 0, 1000},
                                    {500, "", 0, NULL, 0, 1000}};
    rep->target = TARGET;
    rep->vectors = "built-in";
    rep->vectors_version = 1;
    rep->cfg = cfg;
    rep->user = USER;
    rep->started = NOW;
    rep->rate = 10;
    rep->slow_seconds = 10;
    rep->stall_limit = 60;
    rep->timing_samples = 20;
    rep->results = apr_array_make(p, 5, sizeof(wh_probe_result *));
    for (int i = 0; ids[i]; i++) {
        wh_probe_result *r = apr_pcalloc(p, sizeof(*r));
        r->probe = find(set, ids[i]);
        r->expect = wh_probe_expectation(r->probe, cfg);
        r->req = build(c, set, ids[i]);
        r->answer = &ans[i];
        r->deliveries = -1;
        wh_probe_grade(p, r);
        APR_ARRAY_PUSH(rep->results, wh_probe_result *) = r;
    }
    wh_probe_report_sort(rep);
    return rep;
}

static void test_report(void)
{
    wh_probe_set *set = load_set();
    wh_config *cfg = make_cfg();
    wh_probe_ctx c = make_ctx(cfg);
    apr_pool_t *p = wh_test_pool();
    wh_probe_report *rep = sample_report(set, cfg, &c);

    /* failures first, critical before high before info; then the warning */
    static const char *const order[] = {
        "signature.forged", "schema.payment_amount.one_decimal",
        "http.content_type", "signature.missing", "valid"};
    for (int i = 0; i < 5; i++)
        ASSERT_STR(
            APR_ARRAY_IDX(rep->results, i, wh_probe_result *)->probe->id,
            order[i]);
    CU_ASSERT_EQUAL(wh_probe_exit_status(rep), 1);

    const char *js = wh_probe_report_json(p, rep);
    json_object *o = json_tokener_parse(js), *v, *sum;
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT(json_object_object_get_ex(o, "format", &v));
    ASSERT_STR(json_object_get_string(v), "wirehook-probe-report");
    CU_ASSERT(json_object_object_get_ex(o, "exit_status", &v));
    CU_ASSERT_EQUAL(json_object_get_int(v), 1);
    CU_ASSERT(json_object_object_get_ex(o, "summary", &sum));
    CU_ASSERT(json_object_object_get_ex(sum, "fail", &v));
    CU_ASSERT_EQUAL(json_object_get_int(v), 3);
    CU_ASSERT(json_object_object_get_ex(sum, "warn", &v));
    CU_ASSERT_EQUAL(json_object_get_int(v), 1);
    json_object_put(o);
    /* the answer's bytes, printable */
    CU_ASSERT(contains(js, "ok\\\\x01\\\\xff"));

    const char *xml = wh_probe_report_junit(p, rep);
    CU_ASSERT(contains(
        xml,
        "<testsuites name=\"wirehook probe\" tests=\"5\" failures=\"2\""));
    CU_ASSERT(contains(xml, "<failure type=\"critical\""));
    CU_ASSERT(contains(xml, "<failure type=\"high\""));
    CU_ASSERT(!contains(xml, "<failure type=\"info\""));
    CU_ASSERT(contains(xml, "<system-out>failed (info)"));
    CU_ASSERT(contains(xml, "<system-out>warning: "));
    CU_ASSERT(contains(
        xml, "classname=\"probe.signature\" name=\"signature.forged\""));

    const char *text = wh_probe_report_text(p, rep);
    CU_ASSERT(contains(
        text, "5 probes: 3 failed (1 critical, 1 high, 0 warning, 1 info), "
              "1 warnings"));
    CU_ASSERT(strstr(text, "fail         critical signature.forged")
              < strstr(text, "pass         high     valid"));
    CU_ASSERT(contains(text, "    request: POST " TARGET));
    CU_ASSERT(contains(text, "    answer: 200 ok\\x01\\xff"));
    CU_ASSERT(contains(text, "exit 1: a critical or high probe failed"));
    /* no password, in any form */
    const char *const outputs[] = {text, js, xml};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT(!contains(outputs[i], PASSWORD));
        CU_ASSERT(!contains(outputs[i], "YmFuazI6cHcy"));
        CU_ASSERT(!contains(outputs[i], SECRET));
    }

    /* only warnings and info: exit 0 */
    for (int i = 0; i < rep->results->nelts; i++) {
        wh_probe_result *r = APR_ARRAY_IDX(rep->results, i, wh_probe_result *);
        if (r->probe->severity <= WH_SEV_HIGH && r->outcome == WH_OUT_FAIL)
            r->outcome = WH_OUT_PASS;
    }
    CU_ASSERT_EQUAL(wh_probe_exit_status(rep), 0);
}

static const wh_test_case cases[] = {
    {"vectors load", test_vectors_load},
    {"vectors errors", test_vectors_errors},
    {"selection", test_selection},
    {"expectation by config", test_expectation_by_config},
    {"core agrees", test_core_agrees},
    {"core agrees, other settings", test_core_agrees_other_settings},
    {"build valid", test_build_valid},
    {"build timestamps", test_build_timestamps},
    {"build signatures", test_build_signatures},
    {"build auth and http", test_build_auth_and_http},
    {"build bodies", test_build_bodies},
    {"signed url", test_signed_url},
    {"grade answers", test_grade_answers},
    {"grade replays", test_grade_replays},
    {"statistics", test_statistics},
    {"report", test_report},
    {NULL, NULL}};
WH_TEST_SUITE(probe, cases)
