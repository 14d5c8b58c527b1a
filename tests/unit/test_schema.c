/* Schema validation: every spec rule's pass and fail side, checked as the
 * exact list of (JSON pointer, reason) problems, so a test fails when a
 * rule goes silent or starts reporting somewhere else.
 *
 * Each case builds a json-c tree and names what the test oracle, the
 * tree-based validator (tests/oracle/wh_schema_tree.c), must answer for
 * it. Every validation is then repeated by the one pass that replaced it
 * (wh_schema_check) over the tree written out as a body, twice: as json-c
 * writes it and with every object's members in reverse order. Both must
 * give exactly the oracle's problems, in its order, and its facts. */
#include "wh_test.h"
#include "oracle/wh_json_tree.h"
#include "oracle/wh_schema_tree.h"
#include "verify/wh_schema.h"
#include "verify/wh_utf8.h"

#include <apr_strings.h>
#include <json-c/json_pointer.h>
#include <json-c/linkhash.h>
#include <string.h>


#define WEI "/data/wireEventInfo"
#define OW WEI "/originalWire"
#define WI OW "/wireInfo"
#define ORIG OW "/originatorInfo"
#define BEN OW "/beneficiaryInfo"
#define UUID_RE "must be a canonical UUID (8-4-4-4-12 hex digits)"
#define DATE_RE "must be an RFC 3339 date-time"
#define AMOUNT_RE "must match N.NN (digits, a dot, two digits)"
#define ACCT_RE "must be one of D, S"
#define STATUS_RE \
    "is not one of Review, Send Ready, Reject, Error, Exception, Complete"

/* Every member the spec defines, each valid. */
static const char base_json[] =
    "{\"notificationId\":\"8cefee42-cb39-4479-b7fd-b8a358aeb002\","
    "\"eventType\":\"wire.status\","
    "\"eventDateTime\":\"2026-11-22T14:05:09Z\","
    "\"data\":{\"wireEventInfo\":{"
    "\"paymentId\":\"WP-2026-000481\",\"status\":\"Exception\","
    "\"exceptionInfo\":[{\"exceptionCode\":\"BEN-ACCT\","
    "\"exceptionDescription\":\"Beneficiary account closed\"}],"
    "\"IMAD\":\"20261122MMQFMP9K000481\",\"OMAD\":\"20261122QMGFNP31000977\","
    "\"originalWire\":{"
    "\"wireInfo\":{\"paymentAmount\":\"15250.00\","
    "\"referenceId\":\"Not Provided\","
    "\"endToEndId\":\"5b2f0c1e-7d4a-4c1b-9e8f-0a1b2c3d4e5f\"},"
    "\"originatorInfo\":{\"accountNumber\":\"4400123456789\","
    "\"accountType\":\"D\",\"name\":\"Northwind Traders LLC\","
    "\"wireCompanyId\":\"NWT001\",\"wireCompanyName\":\"Northwind Traders\"},"
    "\"beneficiaryInfo\":{\"accountNumber\":\"000123456789\","
    "\"accountType\":\"S\",\"name\":\"Contoso Supplies\","
    "\"address\":{\"addressLine\":\"400 Harbor Way\",\"city\":\"Oakland\","
    "\"state\":\"CA\",\"postalCode\":\"94607\"},"
    "\"institutionInfo\":{\"name\":\"Example Savings Bank\","
    "\"routingNumber\":\"121000358\",\"address\":{\"addressLine\":"
    "\"1 Market St\",\"city\":\"San Francisco\",\"state\":\"CA\","
    "\"postalCode\":\"94105\"}}},"
    "\"remittanceInformation\":\"INV 2026-1107 net 30\"}}}}";

static apr_status_t put_json(void *o)
{
    json_object_put(o);
    return APR_SUCCESS;
}

/* Parsed with json-c directly so these tests do not lean on wh_json. */
static json_object *from_json(const char *text)
{
    json_object *o = json_tokener_parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    apr_pool_cleanup_register(wh_test_pool(), o, put_json,
                              apr_pool_cleanup_null);
    return o;
}

static json_object *base_doc(void)
{
    return from_json(base_json);
}

/* Replaces (or adds) the value at pointer; value NULL is JSON null. */
static void set_at(json_object *root, const char *pointer, json_object *value)
{
    CU_ASSERT_EQUAL_FATAL(json_pointer_set(&root, pointer, value), 0);
}

static void del_at(json_object *root, const char *pointer)
{
    const char *slash = strrchr(pointer, '/');
    json_object *parent = NULL;
    char *parent_ptr = apr_pstrndup(wh_test_pool(), pointer,
                                    (apr_size_t)(slash - pointer));
    CU_ASSERT_EQUAL_FATAL(json_pointer_get(root, parent_ptr, &parent), 0);
    json_object_object_del(parent, slash + 1);
}

static json_object *str(const char *s)
{
    return json_object_new_string(s);
}

/* s repeated n times. */
static const char *rep(const char *s, int n)
{
    const char *out = "";
    for (int i = 0; i < n; i++)
        out = apr_pstrcat(wh_test_pool(), out, s, NULL);
    return out;
}

static const char *json_text(apr_pool_t *p, json_object *o)
{
    return apr_pstrdup(p, json_object_to_json_string_ext(
                              o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The tree as a body with every object's members in reverse order. */
static const char *reversed_text(apr_pool_t *p, json_object *o)
{
    const char *out;
    if (json_object_is_type(o, json_type_array)) {
        out = "[";
        for (size_t i = 0; i < json_object_array_length(o); i++)
            out = apr_pstrcat(p, out, i ? "," : "",
                              reversed_text(p, json_object_array_get_idx(o, i)), NULL);
        return apr_pstrcat(p, out, "]", NULL);
    }
    if (!json_object_is_type(o, json_type_object))
        return json_text(p, o);
    out = "}";
    json_object_object_foreach(o, key, val) {
        json_object *k = json_object_new_string(key);
        out = apr_pstrcat(p, json_text(p, k), ":", reversed_text(p, val),
                          *out == '}' ? "" : ",", out, NULL);
        json_object_put(k);
    }
    return apr_pstrcat(p, "{", out, NULL);
}

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int same_facts(const wh_facts *a, const wh_facts *b)
{
    return same_text(a->notification_id, b->notification_id)
           && same_text(a->event_type, b->event_type)
           && same_text(a->event_time, b->event_time)
           && same_text(a->payment_id, b->payment_id)
           && same_text(a->status, b->status) && a->status_known == b->status_known
           && same_text(a->user, b->user) && a->signed_at == b->signed_at;
}

static const char *describe(const apr_array_header_t *probs);

/* The one pass over body, with facts as they were before the oracle ran,
 * against what the oracle answered for the tree. */
static void one_pass_agrees(const char *body, const wh_schema_opts *opts,
                            const wh_facts *before, int n,
                            const apr_array_header_t *probs, const wh_facts *after)
{
    apr_pool_t *p = wh_test_pool();
    apr_array_header_t *mine = apr_array_make(p, 4, sizeof(wh_problem));
    wh_facts f = *before;
    json_object *o = NULL;
    const char *why = NULL;
    int m = wh_schema_check(p, body, strlen(body), opts, mine, &f, &why);
    int same = m == n && mine->nelts == probs->nelts && same_facts(&f, after);

    if (m == WH_SCHEMA_NOT_JSON) {
        /* the tree holds what no body can carry (a NUL, broken UTF-8) */
        CU_assertImplementation(wh_json_tree_parse(p, body, strlen(body), &o) != NULL,
                                __LINE__, apr_pstrcat(p, "one pass refuses a body the "
                                                      "oracle parses: ", why, NULL),
                                __FILE__, "", CU_FALSE);
        return;
    }
    for (int i = 0; same && i < n; i++) {
        wh_problem a = APR_ARRAY_IDX(mine, i, wh_problem);
        wh_problem b = APR_ARRAY_IDX(probs, i, wh_problem);
        same = strcmp(a.field, b.field) == 0 && strcmp(a.problem, b.problem) == 0;
    }
    CU_assertImplementation(same, __LINE__,
                            apr_psprintf(p, "one pass over %s: %d problem(s) %s, "
                                         "oracle %d: %s", body, m, describe(mine), n,
                                         describe(probs)),
                            __FILE__, "", CU_FALSE);
}

/* The oracle over the tree (as the test asked: probs and facts may be
 * NULL, probs may hold earlier problems), and the one pass over the tree
 * as a body, which must add the same problems and give the same facts. */
static int validate_with(json_object *root, const wh_schema_opts *opts,
                         apr_array_header_t *probs, wh_facts *facts)
{
    apr_pool_t *p = wh_test_pool();
    apr_array_header_t *added = apr_array_make(p, 4, sizeof(wh_problem));
    wh_facts before = {0}, after;
    const char *text = json_text(p, root), *why;
    int n, m;

    if (facts)
        before = *facts;
    after = before;
    n = wh_schema_tree_validate(p, root, opts, probs, facts);
    wh_schema_tree_validate(p, root, opts, added, &after);
    one_pass_agrees(text, opts, &before, n, added, &after);
    one_pass_agrees(reversed_text(p, root), opts, &before, n, added, &after);
    m = wh_schema_check(p, text, strlen(text), opts, NULL, NULL, &why);
    CU_ASSERT(m == n || m == WH_SCHEMA_NOT_JSON);
    return n;
}

static int validate(json_object *root, int reject, apr_array_header_t **probs,
                    wh_facts *facts)
{
    wh_schema_opts opts = {reject};
    *probs = apr_array_make(wh_test_pool(), 4, sizeof(wh_problem));
    return validate_with(root, &opts, *probs, facts);
}

static const char *describe(const apr_array_header_t *probs)
{
    const char *s = "";
    for (int i = 0; i < probs->nelts; i++) {
        wh_problem pr = APR_ARRAY_IDX(probs, i, wh_problem);
        s = apr_psprintf(wh_test_pool(), "%s[%s: %s] ", s, pr.field,
                         pr.problem);
    }
    return s;
}

/* The problems must be exactly the (pointer, reason) pairs, in order. */
static void expect_problems(json_object *root, int reject,
                            const char *const *pairs, int line)
{
    apr_array_header_t *probs;
    wh_facts facts = {0};
    int want = 0, n = validate(root, reject, &probs, &facts);
    int same;

    while (pairs[2 * want])
        want++;
    same = n == want && probs->nelts == want;
    for (int i = 0; same && i < want; i++) {
        wh_problem pr = APR_ARRAY_IDX(probs, i, wh_problem);
        same = strcmp(pr.field, pairs[2 * i]) == 0
               && strcmp(pr.problem, pairs[2 * i + 1]) == 0;
    }
    CU_assertImplementation(
        same, (unsigned)line,
        apr_psprintf(wh_test_pool(), "want %d problem(s) starting [%s: %s], "
                     "got %d: %s", want, want ? pairs[0] : "-",
                     want ? pairs[1] : "-", n, describe(probs)),
        __FILE__, "", CU_FALSE);
}

static const char *const none[] = {NULL};

#define EXPECT_VALID(root) expect_problems((root), 0, none, __LINE__)
#define EXPECT(root, ...) \
    expect_problems((root), 0, (const char *const[]){__VA_ARGS__, NULL}, \
                    __LINE__)

/* Base document with one value replaced: valid, or exactly one problem at
 * that pointer. */
static void field_case(const char *pointer, json_object *value,
                       const char *reason, int line)
{
    json_object *d = base_doc();
    set_at(d, pointer, value);
    if (reason)
        expect_problems(d, 0, (const char *const[]){pointer, reason, NULL},
                        line);
    else
        expect_problems(d, 0, none, line);
}

#define FIELD_OK(ptr, v) field_case((ptr), (v), NULL, __LINE__)
#define FIELD_BAD(ptr, v, why) field_case((ptr), (v), (why), __LINE__)
#define STR_OK(ptr, s) FIELD_OK((ptr), str(s))
#define STR_BAD(ptr, s, why) FIELD_BAD((ptr), str(s), (why))

/* Base document without one member. */
static void missing_case(const char *pointer, const char *reason, int line)
{
    json_object *d = base_doc();
    del_at(d, pointer);
    if (reason)
        expect_problems(d, 0, (const char *const[]){pointer, reason, NULL},
                        line);
    else
        expect_problems(d, 0, none, line);
}

#define ABSENT_OK(ptr) missing_case((ptr), NULL, __LINE__)
#define ABSENT_BAD(ptr) missing_case((ptr), "is required", __LINE__)

/* A string member's limit: max characters pass, one more fails. */
static void limit_case(const char *pointer, int max, int line)
{
    const char *why = apr_psprintf(wh_test_pool(),
                                   "must be at most %d characters (got %d)",
                                   max, max + 1);
    field_case(pointer, str(rep("a", max)), NULL, line);
    field_case(pointer, str(rep("a", max + 1)), why, line);
    field_case(pointer, str(""), "must not be empty", line);
}

#define LIMIT(ptr, max) limit_case((ptr), (max), __LINE__)

static json_object *sample(const char *name)
{
    apr_size_t len = 0;
    json_object *o = NULL;
    char *path = apr_pstrcat(wh_test_pool(), wh_test_shared_dir(),
                             "/samples/", name, NULL);
    char *body = wh_test_slurp(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    CU_ASSERT_PTR_NULL_FATAL(wh_json_tree_parse(wh_test_pool(), body, len, &o));
    return o;
}

/* ---- samples ------------------------------------------------------------ */

static void test_sample_complete(void)
{
    apr_array_header_t *probs;
    wh_facts f = {0};
    f.user = "kept";
    CU_ASSERT_EQUAL(validate(sample("wire-status-complete.json"), 1, &probs,
                             &f), 0);
    CU_ASSERT_EQUAL(probs->nelts, 0);
    CU_ASSERT_STRING_EQUAL(f.notification_id,
                           "8cefee42-cb39-4479-b7fd-b8a358aeb002");
    CU_ASSERT_STRING_EQUAL(f.event_type, "wire.status");
    CU_ASSERT_STRING_EQUAL(f.event_time, "2026-11-22T14:05:09Z");
    CU_ASSERT_STRING_EQUAL(f.payment_id, "WP-2026-000481");
    CU_ASSERT_STRING_EQUAL(f.status, "Complete");
    CU_ASSERT_EQUAL(f.status_known, 1);
    CU_ASSERT_STRING_EQUAL(f.user, "kept");
}

static void test_sample_exception(void)
{
    apr_array_header_t *probs;
    wh_facts f = {0};
    CU_ASSERT_EQUAL(validate(sample("wire-status-exception.json"), 1, &probs,
                             &f), 0);
    CU_ASSERT_STRING_EQUAL(f.status, "Exception");
    CU_ASSERT_EQUAL(f.status_known, 1);
}

static void test_sample_processed_flagged(void)
{
    apr_array_header_t *probs;
    wh_facts f = {0};
    json_object *d = sample("wire-status-processed-as-in-spec-sample.json");
    CU_ASSERT_EQUAL(validate(d, 0, &probs, &f), 0);
    CU_ASSERT_STRING_EQUAL(f.status, "Processed");
    CU_ASSERT_EQUAL(f.status_known, 0);
}

static void test_sample_processed_rejected(void)
{
    json_object *d = sample("wire-status-processed-as-in-spec-sample.json");
    expect_problems(d, 1, (const char *const[]){WEI "/status", STATUS_RE,
                                                NULL}, __LINE__);
}

static void test_sample_list_response_not_notification(void)
{
    EXPECT(sample("list-response-as-in-spec-sample.json"),
           "/notificationId", "is required", "/eventType", "is required",
           "/eventDateTime", "is required", "/data", "is required");
}

static void test_base_document_valid(void)
{
    EXPECT_VALID(base_doc());
}

/* ---- envelope ----------------------------------------------------------- */

static void test_root_must_be_object(void)
{
    EXPECT(from_json("[]"), "", "must be an object");
    EXPECT(from_json("\"x\""), "", "must be an object");
    EXPECT(NULL, "", "must be an object");
}

static void test_envelope_all_missing(void)
{
    EXPECT(from_json("{}"), "/notificationId", "is required", "/eventType",
           "is required", "/eventDateTime", "is required", "/data",
           "is required");
}

static void test_envelope_each_required(void)
{
    ABSENT_BAD("/notificationId");
    ABSENT_BAD("/eventType");
    ABSENT_BAD("/eventDateTime");
    ABSENT_BAD("/data");
}

static void test_envelope_null_is_missing(void)
{
    FIELD_BAD("/notificationId", NULL, "is required");
    FIELD_BAD("/eventType", NULL, "is required");
    FIELD_BAD("/eventDateTime", NULL, "is required");
    FIELD_BAD("/data", NULL, "is required");
}

static void test_envelope_types(void)
{
    FIELD_BAD("/notificationId", json_object_new_int(1), "must be a string");
    FIELD_BAD("/eventType", json_object_new_boolean(1), "must be a string");
    FIELD_BAD("/eventDateTime", json_object_new_int(1700000000),
              "must be a string");
    FIELD_BAD("/data", json_object_new_array(), "must be an object");
    FIELD_BAD("/data", str("x"), "must be an object");
}

static void test_event_type_non_empty(void)
{
    STR_BAD("/eventType", "", "must not be empty");
}

static void test_other_event_type_minimal(void)
{
    apr_array_header_t *probs;
    wh_facts f = {0};
    json_object *d = from_json(
        "{\"notificationId\":\"8CEFEE42-CB39-4479-B7FD-B8A358AEB002\","
        "\"eventType\":\"wire.created\","
        "\"eventDateTime\":\"2026-11-22T14:05:09Z\",\"data\":{}}");
    CU_ASSERT_EQUAL(validate(d, 1, &probs, &f), 0);
    CU_ASSERT_STRING_EQUAL(f.event_type, "wire.created");
    CU_ASSERT_PTR_NULL(f.payment_id);
    CU_ASSERT_PTR_NULL(f.status);
    CU_ASSERT_EQUAL(f.status_known, 0);
}

static void test_other_event_type_data_unchecked(void)
{
    json_object *d = base_doc();
    set_at(d, "/eventType", str("wire.returned"));
    set_at(d, WEI "/paymentId", json_object_new_int(5));
    set_at(d, WI "/paymentAmount", str(".50"));
    set_at(d, WEI "/status", str("Processed"));
    expect_problems(d, 1, none, __LINE__);
    /* Case matters: "Wire.Status" is some other event type. */
    set_at(d, "/eventType", str("Wire.Status"));
    EXPECT_VALID(d);
}

static void test_other_event_type_data_still_object(void)
{
    json_object *d = base_doc();
    set_at(d, "/eventType", str("wire.returned"));
    set_at(d, "/data", json_object_new_array());
    EXPECT(d, "/data", "must be an object");
}

static void test_unknown_members_allowed(void)
{
    json_object *d = base_doc();
    set_at(d, "/extra", json_object_new_int(1));
    set_at(d, WEI "/newField", json_object_new_array());
    set_at(d, WI "/currency", str("USD"));
    set_at(d, BEN "/address/country", json_object_new_object());
    EXPECT_VALID(d);
}

/* ---- UUIDs -------------------------------------------------------------- */

static void test_uuid_good(void)
{
    STR_OK("/notificationId", "00000000-0000-0000-0000-000000000000");
    STR_OK("/notificationId", "ABCDEF01-2345-6789-abcd-ef0123456789");
    STR_OK(WI "/endToEndId", "5B2F0C1E-7D4A-4C1B-9E8F-0A1B2C3D4E5F");
}

static void test_uuid_bad(void)
{
    const char *bad[] = {
        "8cefee42-cb39-4479-b7fd-b8a358aeb00",   /* 35 */
        "8cefee42-cb39-4479-b7fd-b8a358aeb0021", /* 37 */
        "8cefee4-2cb39-4479-b7fd-b8a358aeb002",  /* hyphen moved */
        "8cefee42cb39-4479-b7fd-b8a358aeb0021",  /* hyphen replaced */
        "8cefee42-cb39-4479-b7fd-b8a358aeb00g",  /* not hex */
        "{8cefee42-cb39-4479-b7fd-b8a358aeb0}",
        "8cefee42cb394479b7fdb8a358aeb002",      /* no hyphens */
        "", NULL
    };
    for (int i = 0; bad[i]; i++)
        STR_BAD("/notificationId", bad[i], UUID_RE);
    STR_BAD(WI "/endToEndId", bad[2], UUID_RE);
    STR_BAD(WI "/endToEndId", "Not Provided", UUID_RE);
}

/* ---- eventDateTime ------------------------------------------------------ */

static void test_datetime_good(void)
{
    const char *good[] = {
        "2026-11-22T14:05:09Z", "2026-11-22T14:05:09+05:30",
        "2026-11-22T14:05:09.123-05:00", "2026-11-22t14:05:09z",
        "2026-11-22T14:05:09.1Z", "2026-11-22T14:05:09.123456789Z",
        "2024-02-29T00:00:00Z", "2000-02-29T12:00:00Z",
        "2026-12-31T23:59:60Z", "2026-01-31T23:59:59-23:59",
        "2026-04-30T00:00:00+00:00", NULL
    };
    for (int i = 0; good[i]; i++)
        STR_OK("/eventDateTime", good[i]);
}

static void test_datetime_bad(void)
{
    const char *bad[] = {
        "2026-11-22T14:05:09",        /* no offset */
        "2026-02-29T00:00:00Z",       /* not a leap year */
        "1900-02-29T00:00:00Z",       /* century, not leap */
        "2026-11-22T25:00:00Z", "2026-11-22T24:00:00Z",
        "2026-13-22T14:05:09Z", "2026-00-22T14:05:09Z",
        "2026-11-00T14:05:09Z", "2026-04-31T14:05:09Z",
        "2026-11-22T14:60:09Z", "2026-11-22T14:05:61Z",
        "2026-11-22 14:05:09Z",       /* space for T */
        "2026-11-22T14:05:09.Z",      /* empty fraction */
        "2026-11-22T14:05:09.1234567890Z",
        "2026-11-22T14:05:09-05:00.123", /* fraction after the offset */
        "2026-11-22T14:05:09+24:00", "2026-11-22T14:05:09+05:60",
        "2026-11-22T14:05:09+0530", "2026-11-22T14:05:09+05",
        "2026-11-22T14:05Z", "2026-11-22", "2026-11-22T14:05:09Zjunk",
        "26-11-22T14:05:09Z", "2026-1-22T14:05:09Z", "+2026-11-22T14:05:09Z",
        "2026-11-22T14:05:09 Z", "", NULL
    };
    for (int i = 0; bad[i]; i++)
        STR_BAD("/eventDateTime", bad[i], DATE_RE);
}

/* ---- wire.status: wireEventInfo ----------------------------------------- */

static void test_wire_event_info_required(void)
{
    ABSENT_BAD(WEI);
    FIELD_BAD(WEI, NULL, "is required");
    FIELD_BAD(WEI, json_object_new_array(), "must be an object");
}

static void test_minimal_wire_status(void)
{
    EXPECT_VALID(from_json(
        "{\"notificationId\":\"8cefee42-cb39-4479-b7fd-b8a358aeb002\","
        "\"eventType\":\"wire.status\","
        "\"eventDateTime\":\"2026-11-22T14:05:09Z\","
        "\"data\":{\"wireEventInfo\":{\"paymentId\":\"P\","
        "\"status\":\"Review\"}}}"));
}

static void test_payment_id(void)
{
    ABSENT_BAD(WEI "/paymentId");
    FIELD_BAD(WEI "/paymentId", NULL, "is required");
    STR_BAD(WEI "/paymentId", "", "must not be empty");
    FIELD_BAD(WEI "/paymentId", json_object_new_int(481), "must be a string");
}

static void test_status_required(void)
{
    ABSENT_BAD(WEI "/status");
    FIELD_BAD(WEI "/status", NULL, "is required");
    STR_BAD(WEI "/status", "", "must not be empty");
    FIELD_BAD(WEI "/status", json_object_new_int(1), "must be a string");
}

static void test_status_known_values(void)
{
    const char *known[] = {"Review", "Send Ready", "Reject", "Error",
                           "Exception", "Complete", NULL};
    for (int i = 0; known[i]; i++) {
        json_object *d = base_doc();
        set_at(d, WEI "/status", str(known[i]));
        expect_problems(d, 1, none, __LINE__);
        CU_ASSERT(wh_schema_status_known(known[i]));
    }
}

static void test_status_unknown(void)
{
    const char *unknown[] = {"Processed", "complete", "Send  Ready",
                             "SendReady", "Complete ", NULL};
    for (int i = 0; unknown[i]; i++) {
        apr_array_header_t *probs;
        wh_facts f = {0};
        json_object *d = base_doc();
        set_at(d, WEI "/status", str(unknown[i]));
        CU_ASSERT_EQUAL(validate(d, 0, &probs, &f), 0);
        CU_ASSERT_EQUAL(f.status_known, 0);
        CU_ASSERT_STRING_EQUAL(f.status, unknown[i]);
        expect_problems(d, 1, (const char *const[]){WEI "/status", STATUS_RE,
                                                    NULL}, __LINE__);
        CU_ASSERT_FALSE(wh_schema_status_known(unknown[i]));
    }
    CU_ASSERT_FALSE(wh_schema_status_known(NULL));
    CU_ASSERT_FALSE(wh_schema_status_known(""));
}

static void test_imad_omad(void)
{
    FIELD_OK(WEI "/OMAD", NULL);
    FIELD_OK(WEI "/IMAD", NULL);
    ABSENT_OK(WEI "/OMAD");
    STR_OK(WEI "/IMAD", "");
    FIELD_BAD(WEI "/IMAD", json_object_new_int(1), "must be a string");
    FIELD_BAD(WEI "/OMAD", json_object_new_object(), "must be a string");
}

/* ---- exceptionInfo ------------------------------------------------------ */

static void test_exception_info_optional(void)
{
    ABSENT_OK(WEI "/exceptionInfo");
    FIELD_OK(WEI "/exceptionInfo", NULL);
    FIELD_OK(WEI "/exceptionInfo", json_object_new_array());
}

static void test_exception_info_types(void)
{
    FIELD_BAD(WEI "/exceptionInfo", json_object_new_object(),
              "must be an array");
    FIELD_BAD(WEI "/exceptionInfo/0", str("x"), "must be an object");
    FIELD_BAD(WEI "/exceptionInfo/0", NULL, "must be an object");
}

static void test_exception_item_members(void)
{
    ABSENT_BAD(WEI "/exceptionInfo/0/exceptionCode");
    ABSENT_BAD(WEI "/exceptionInfo/0/exceptionDescription");
    FIELD_BAD(WEI "/exceptionInfo/0/exceptionCode", NULL, "is required");
    FIELD_BAD(WEI "/exceptionInfo/0/exceptionDescription",
              json_object_new_int(3), "must be a string");
    STR_OK(WEI "/exceptionInfo/0/exceptionCode", "");
}

static void test_exception_second_item(void)
{
    json_object *d = base_doc();
    json_object *arr = NULL;
    CU_ASSERT_EQUAL_FATAL(json_pointer_get(d, WEI "/exceptionInfo", &arr), 0);
    json_object_array_add(arr, json_tokener_parse("{\"exceptionCode\":\"X\"}"));
    json_object_array_add(arr, json_object_new_int(7));
    EXPECT(d, WEI "/exceptionInfo/1/exceptionDescription", "is required",
           WEI "/exceptionInfo/2", "must be an object");
}

/* ---- originalWire and wireInfo ------------------------------------------ */

static void test_original_wire_optional(void)
{
    ABSENT_OK(OW);
    FIELD_OK(OW, NULL);
    FIELD_OK(OW, json_object_new_object());
    FIELD_BAD(OW, json_object_new_array(), "must be an object");
    FIELD_OK(WI, NULL);
    FIELD_BAD(WI, str("x"), "must be an object");
    FIELD_BAD(ORIG, json_object_new_int(1), "must be an object");
    FIELD_BAD(BEN, json_object_new_boolean(0), "must be an object");
}

static void test_payment_amount_good(void)
{
    STR_OK(WI "/paymentAmount", "0.50");
    STR_OK(WI "/paymentAmount", "15250.00");
    STR_OK(WI "/paymentAmount", "123456789.00");
    STR_OK(WI "/paymentAmount", "0.00");
    FIELD_OK(WI "/paymentAmount", NULL);
    ABSENT_OK(WI "/paymentAmount");
}

static void test_payment_amount_bad(void)
{
    const char *bad[] = {".50", "1.5", "1,00", "abc", "1.500", "-1.00",
                         " 1.00", "1.00 ", "1", "1.", "1..00", "+1.00",
                         "1e2.00", NULL};
    for (int i = 0; bad[i]; i++)
        STR_BAD(WI "/paymentAmount", bad[i], AMOUNT_RE);
    STR_BAD(WI "/paymentAmount", "1234567890.00",
            "must be at most 12 characters (got 13)");
    STR_BAD(WI "/paymentAmount", "", "must not be empty");
    FIELD_BAD(WI "/paymentAmount", json_object_new_double(15250.0),
              "must be a string");
}

static void test_reference_id(void)
{
    STR_OK(WI "/referenceId", "Not Provided");
    LIMIT(WI "/referenceId", 35);
    ABSENT_OK(WI "/referenceId");
}

static void test_end_to_end_id_optional(void)
{
    ABSENT_OK(WI "/endToEndId");
    FIELD_OK(WI "/endToEndId", NULL);
}

static void test_remittance_information(void)
{
    const char *why = "must be at most 140 characters (got 141)";
    STR_OK(OW "/remittanceInformation", rep("r", 140));
    STR_BAD(OW "/remittanceInformation", rep("r", 141), why);
    STR_OK(OW "/remittanceInformation", "");
    STR_OK(OW "/remittanceInformation", rep("\xE2\x82\xAC", 140));
}

/* ---- originatorInfo / beneficiaryInfo ----------------------------------- */

static void test_originator_limits(void)
{
    LIMIT(ORIG "/accountNumber", 16);
    LIMIT(ORIG "/name", 35);
    LIMIT(ORIG "/wireCompanyId", 12);
    LIMIT(ORIG "/wireCompanyName", 40);
}

static void test_beneficiary_limits(void)
{
    LIMIT(BEN "/accountNumber", 34);
    LIMIT(BEN "/name", 35);
}

static void test_party_members_optional(void)
{
    ABSENT_OK(ORIG "/accountNumber");
    ABSENT_OK(ORIG "/name");
    ABSENT_OK(ORIG "/wireCompanyId");
    FIELD_OK(ORIG "/wireCompanyName", NULL);
    ABSENT_OK(BEN "/accountNumber");
    FIELD_OK(BEN "/name", NULL);
    ABSENT_OK(BEN "/address");
    ABSENT_OK(BEN "/institutionInfo");
}

static void test_account_type(void)
{
    const char *parties[] = {ORIG "/accountType", BEN "/accountType", NULL};
    for (int i = 0; parties[i]; i++) {
        STR_OK(parties[i], "D");
        STR_OK(parties[i], "S");
        ABSENT_OK(parties[i]);
        FIELD_OK(parties[i], NULL);
        STR_BAD(parties[i], "X", ACCT_RE);
        STR_BAD(parties[i], "d", ACCT_RE);
        STR_BAD(parties[i], "s", ACCT_RE);
        STR_BAD(parties[i], "", ACCT_RE);
        STR_BAD(parties[i], "DS", ACCT_RE);
        STR_BAD(parties[i], "Deposit", ACCT_RE);
        FIELD_BAD(parties[i], json_object_new_int(1), "must be a string");
    }
}

static void test_multibyte_lengths(void)
{
    const char *e = "\xC3\xA9";             /* é: 2 bytes */
    const char *emoji = "\xF0\x9F\x98\x80"; /* 4 bytes */
    STR_OK(ORIG "/name", rep(e, 35));
    STR_BAD(ORIG "/name", rep(e, 36),
            "must be at most 35 characters (got 36)");
    STR_OK(BEN "/name", rep(emoji, 35));
    STR_BAD(BEN "/name", rep(emoji, 36),
            "must be at most 35 characters (got 36)");
    STR_OK(ORIG "/wireCompanyId", rep("\xE2\x82\xAC", 12));
    STR_BAD(ORIG "/wireCompanyId", apr_pstrcat(wh_test_pool(),
                                               rep("a", 11), e, e, NULL),
            "must be at most 12 characters (got 13)");
}

static void test_addresses(void)
{
    const char *fields[] = {"addressLine", "city", "state", "postalCode",
                            NULL};
    for (int i = 0; fields[i]; i++) {
        const char *b = apr_pstrcat(wh_test_pool(), BEN "/address/",
                                    fields[i], NULL);
        const char *inst = apr_pstrcat(wh_test_pool(),
                                       BEN "/institutionInfo/address/",
                                       fields[i], NULL);
        FIELD_BAD(b, json_object_new_int(94607), "must be a string");
        FIELD_BAD(inst, json_object_new_array(), "must be a string");
        ABSENT_OK(b);
        FIELD_OK(inst, NULL);
        STR_OK(b, "");
    }
    FIELD_BAD(BEN "/address", str("400 Harbor Way"), "must be an object");
    FIELD_BAD(BEN "/institutionInfo/address", json_object_new_array(),
              "must be an object");
}

static void test_institution_info(void)
{
    FIELD_BAD(BEN "/institutionInfo", json_object_new_array(),
              "must be an object");
    FIELD_BAD(BEN "/institutionInfo/name", json_object_new_int(1),
              "must be a string");
    FIELD_BAD(BEN "/institutionInfo/routingNumber",
              json_object_new_int(121000358), "must be a string");
    ABSENT_OK(BEN "/institutionInfo/routingNumber");
}

/* ---- strings that are not text ------------------------------------------ */

static void test_string_with_nul(void)
{
    FIELD_BAD(WEI "/paymentId", json_object_new_string_len("P\0X", 3),
              "must not contain NUL characters");
}

static void test_string_invalid_utf8(void)
{
    FIELD_BAD(ORIG "/name", json_object_new_string_len("\xED\xA0\x80", 3),
              "must be valid UTF-8");
}

/* ---- many problems at once ---------------------------------------------- */

static void test_several_problems_all_listed(void)
{
    json_object *d = base_doc();
    set_at(d, "/notificationId", str("nope"));
    set_at(d, "/eventDateTime", str("2026-11-22 14:05:09Z"));
    del_at(d, WEI "/paymentId");
    set_at(d, WI "/paymentAmount", str(".50"));
    set_at(d, WI "/referenceId", str(""));
    set_at(d, ORIG "/accountType", str("X"));
    set_at(d, BEN "/name", str(rep("n", 36)));
    set_at(d, BEN "/institutionInfo/address/city", json_object_new_int(1));
    set_at(d, OW "/remittanceInformation", json_object_new_int(1));
    EXPECT(d, "/notificationId", UUID_RE, "/eventDateTime", DATE_RE,
           WEI "/paymentId", "is required",
           OW "/remittanceInformation", "must be a string",
           WI "/paymentAmount", AMOUNT_RE,
           WI "/referenceId", "must not be empty",
           ORIG "/accountType", ACCT_RE,
           BEN "/name", "must be at most 35 characters (got 36)",
           BEN "/institutionInfo/address/city", "must be a string");
}

static void test_problems_appended_and_counted(void)
{
    apr_array_header_t *probs = apr_array_make(wh_test_pool(), 1,
                                               sizeof(wh_problem));
    wh_facts f = {0};
    json_object *d = base_doc();
    APR_ARRAY_PUSH(probs, wh_problem) = (wh_problem){"/earlier", "kept"};
    set_at(d, "/eventType", str(""));
    set_at(d, "/data", json_object_new_int(0));
    CU_ASSERT_EQUAL(validate_with(d, NULL, probs, &f), 2);
    CU_ASSERT_EQUAL_FATAL(probs->nelts, 3);
    CU_ASSERT_STRING_EQUAL(APR_ARRAY_IDX(probs, 0, wh_problem).field,
                           "/earlier");
    CU_ASSERT_STRING_EQUAL(APR_ARRAY_IDX(probs, 2, wh_problem).field,
                           "/data");
}

static void test_facts_filled_despite_problems(void)
{
    apr_array_header_t *probs;
    wh_facts f = {0};
    json_object *d = base_doc();
    f.user = "alice";
    f.payment_id = "stale";
    set_at(d, "/notificationId", str("not-a-uuid"));
    set_at(d, "/eventDateTime", str("yesterday"));
    set_at(d, WEI "/paymentId", json_object_new_int(1));
    set_at(d, WEI "/status", str("Processed"));
    CU_ASSERT_EQUAL(validate(d, 1, &probs, &f), 4);
    CU_ASSERT_STRING_EQUAL(f.notification_id, "not-a-uuid");
    CU_ASSERT_STRING_EQUAL(f.event_time, "yesterday");
    CU_ASSERT_STRING_EQUAL(f.event_type, "wire.status");
    CU_ASSERT_PTR_NULL(f.payment_id);
    CU_ASSERT_STRING_EQUAL(f.status, "Processed");
    CU_ASSERT_EQUAL(f.status_known, 0);
    CU_ASSERT_STRING_EQUAL(f.user, "alice");
}

/* Members are found by names hashed once per process: the same in a
 * table json-c has grown (many unknown members), and in tables made under
 * json-c's other string hash, which takes json-c's own lookup. */
static void expect_found_everywhere(const char *what)
{
    apr_array_header_t *probs;
    wh_facts f = {0};
    json_object *d = base_doc(), *wei = NULL;
    static const char *const missing[] = {
        WEI "/paymentId", "is required", BEN "/address/city", "must be a string", NULL
    };

    CU_ASSERT_EQUAL_FATAL(json_pointer_get(d, WEI, &wei), 0);
    for (int i = 0; i < 40; i++)
        json_object_object_add(wei, apr_psprintf(wh_test_pool(), "x-extra-%d", i),
                               json_object_new_int(i));
    validate(d, 1, &probs, &f);
    CU_assertImplementation(probs->nelts == 0, __LINE__,
                            apr_pstrcat(wh_test_pool(), what, ": ",
                                        describe(probs), NULL),
                            __FILE__, "", CU_FALSE);
    CU_ASSERT_STRING_EQUAL(f.notification_id, "8cefee42-cb39-4479-b7fd-b8a358aeb002");
    CU_ASSERT_STRING_EQUAL(f.event_type, "wire.status");
    CU_ASSERT_STRING_EQUAL(f.event_time, "2026-11-22T14:05:09Z");
    CU_ASSERT_STRING_EQUAL(f.payment_id, "WP-2026-000481");
    CU_ASSERT_STRING_EQUAL(f.status, "Exception");
    del_at(d, WEI "/paymentId");
    set_at(d, BEN "/address/city", json_object_new_int(7));
    expect_problems(d, 1, missing, __LINE__);
}

static void test_member_lookups(void)
{
    expect_found_everywhere("json-c's default string hash");
    CU_ASSERT_EQUAL_FATAL(json_global_set_string_hash(JSON_C_STR_HASH_PERLLIKE), 0);
    expect_found_everywhere("json-c's other string hash");
    CU_ASSERT_EQUAL(json_global_set_string_hash(JSON_C_STR_HASH_DFLT), 0);
    expect_found_everywhere("json-c's default string hash again");
}

static void test_facts_are_copies(void)
{
    apr_array_header_t *probs;
    wh_facts f = {0};
    json_object *d = base_doc();
    json_object *status = NULL;
    CU_ASSERT_EQUAL(validate(d, 0, &probs, &f), 0);
    CU_ASSERT_EQUAL_FATAL(json_pointer_get(d, WEI "/status", &status), 0);
    CU_ASSERT_PTR_NOT_EQUAL(f.status, json_object_get_string(status));
    set_at(d, WEI "/status", str("Review")); /* frees the old string */
    CU_ASSERT_STRING_EQUAL(f.status, "Exception");
}

static void test_null_facts_and_problems(void)
{
    json_object *d = base_doc();
    set_at(d, "/eventType", str(""));
    CU_ASSERT_EQUAL(validate_with(d, NULL, NULL, NULL), 1);
}

/* ---- JSON pointers and UTF-8 -------------------------------------------- */

static void test_pointer_escaping(void)
{
    apr_pool_t *p = wh_test_pool();
    CU_ASSERT_STRING_EQUAL(wh_schema_pointer_append(p, "", "a"), "/a");
    CU_ASSERT_STRING_EQUAL(wh_schema_pointer_append(p, "/x", "a/b"),
                           "/x/a~1b");
    CU_ASSERT_STRING_EQUAL(wh_schema_pointer_append(p, "/x", "m~n"),
                           "/x/m~0n");
    /* ~1 must not be read back as / : the ~ is escaped first. */
    CU_ASSERT_STRING_EQUAL(wh_schema_pointer_append(p, "", "~1/~"),
                           "/~01~1~0");
    CU_ASSERT_STRING_EQUAL(wh_schema_pointer_append(p, "", ""), "/");
}

static void test_utf8_length(void)
{
    CU_ASSERT_EQUAL(wh_utf8_length("", 0), 0);
    CU_ASSERT_EQUAL(wh_utf8_length(NULL, 0), 0);
    CU_ASSERT_EQUAL(wh_utf8_length(NULL, 1), -1);
    CU_ASSERT_EQUAL(wh_utf8_length("abc", 3), 3);
    CU_ASSERT_EQUAL(wh_utf8_length("abc", 2), 2);
    CU_ASSERT_EQUAL(wh_utf8_length("\xC3\xA9t\xC3\xA9", 5), 3);
    CU_ASSERT_EQUAL(wh_utf8_length("\xE2\x82\xAC\xF0\x9F\x98\x80", 7), 2);
    CU_ASSERT_EQUAL(wh_utf8_length("\xF4\x8F\xBF\xBF", 4), 1);
    CU_ASSERT_EQUAL(wh_utf8_length("\xEF\xBF\xBF", 3), 1);
    CU_ASSERT_EQUAL(wh_utf8_length("a\0b", 3), 3);
}

static void test_utf8_length_invalid(void)
{
    const char *bad[] = {
        "\x80", "\xBF", "\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF",
        "\xE0\x9F\xBF", "\xF0\x80\x80\xAF", "\xF0\x8F\xBF\xBF",
        "\xED\xA0\x80", "\xED\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
        "\xFE", "\xFF", "\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xC3\x28",
        "\xE2\x28\xA1", "a\xC3", NULL
    };
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_EQUAL(wh_utf8_length(bad[i], strlen(bad[i])), -1);
    /* The length bounds the read: a sequence cut by len is invalid. */
    CU_ASSERT_EQUAL(wh_utf8_length("\xC3\xA9", 1), -1);
}

static const wh_test_case schema_cases[] = {
    {"sample: complete", test_sample_complete},
    {"sample: exception", test_sample_exception},
    {"sample: Processed flagged", test_sample_processed_flagged},
    {"sample: Processed rejected", test_sample_processed_rejected},
    {"sample: list response is not a notification",
     test_sample_list_response_not_notification},
    {"base document valid", test_base_document_valid},
    {"root must be an object", test_root_must_be_object},
    {"envelope: all missing", test_envelope_all_missing},
    {"envelope: each required", test_envelope_each_required},
    {"envelope: null is missing", test_envelope_null_is_missing},
    {"envelope: types", test_envelope_types},
    {"eventType non-empty", test_event_type_non_empty},
    {"other eventType: minimal envelope", test_other_event_type_minimal},
    {"other eventType: data unchecked", test_other_event_type_data_unchecked},
    {"other eventType: data still an object",
     test_other_event_type_data_still_object},
    {"unknown members allowed", test_unknown_members_allowed},
    {"UUID good", test_uuid_good},
    {"UUID bad", test_uuid_bad},
    {"eventDateTime good", test_datetime_good},
    {"eventDateTime bad", test_datetime_bad},
    {"wireEventInfo required", test_wire_event_info_required},
    {"minimal wire.status", test_minimal_wire_status},
    {"paymentId", test_payment_id},
    {"status required", test_status_required},
    {"status known values", test_status_known_values},
    {"status unknown", test_status_unknown},
    {"IMAD and OMAD", test_imad_omad},
    {"exceptionInfo optional", test_exception_info_optional},
    {"exceptionInfo types", test_exception_info_types},
    {"exceptionInfo item members", test_exception_item_members},
    {"exceptionInfo later items", test_exception_second_item},
    {"originalWire optional", test_original_wire_optional},
    {"paymentAmount good", test_payment_amount_good},
    {"paymentAmount bad", test_payment_amount_bad},
    {"referenceId", test_reference_id},
    {"endToEndId optional", test_end_to_end_id_optional},
    {"remittanceInformation", test_remittance_information},
    {"originatorInfo limits", test_originator_limits},
    {"beneficiaryInfo limits", test_beneficiary_limits},
    {"party members optional", test_party_members_optional},
    {"accountType", test_account_type},
    {"multibyte lengths", test_multibyte_lengths},
    {"addresses", test_addresses},
    {"institutionInfo", test_institution_info},
    {"string with NUL", test_string_with_nul},
    {"string with invalid UTF-8", test_string_invalid_utf8},
    {"several problems all listed", test_several_problems_all_listed},
    {"problems appended and counted", test_problems_appended_and_counted},
    {"facts filled despite problems", test_facts_filled_despite_problems},
    {"facts are copies", test_facts_are_copies},
    {"member lookups", test_member_lookups},
    {"NULL facts and problems", test_null_facts_and_problems},
    {"pointer escaping", test_pointer_escaping},
    {"UTF-8 length", test_utf8_length},
    {"UTF-8 length invalid", test_utf8_length_invalid},
    {NULL, NULL}
};

WH_TEST_SUITE(schema, schema_cases)
