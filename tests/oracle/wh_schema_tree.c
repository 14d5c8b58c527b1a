/* The test oracle: validation of a parsed notification (a json-c tree)
 * against the wire webhook spec, as wirehook did it before
 * shared/verify/wh_schema.c took the same rules into its one pass. Kept
 * as it was, only renamed, so that the tests can hold the one pass to it;
 * the JSON Pointer escaping and the list of known statuses are the
 * production ones (wh_schema.h), tested on their own.
 *
 * The schema is data: each object is a node_rule listing its string members
 * and its child objects (or arrays of objects), so every spec rule is one
 * table row and the walker is the only code that reports problems. Every
 * problem is collected rather than stopping at the first, because a sender
 * fixing a rejected notification should see all of what is wrong at once.
 * Each member gets at most one problem (the first rule it breaks), so the
 * list stays readable and its size predictable.
 *
 * Decisions the spec leaves open (see docs/spec-decisions.md):
 * - JSON null on an optional member means absent: senders emit null for
 *   values not yet known (OMAD before the wire is sent), and rejecting it
 *   would bounce authentic notifications. On a required member it is
 *   "is required".
 * - Unknown members are allowed, for forward compatibility.
 * - referenceId is "at most 35", not "exactly 35": the spec's own
 *   "Not Provided" value is 12 characters.
 * - Lengths count code points, not bytes: the limits are the bank's field
 *   sizes, written in characters. */
#include "wh_schema_tree.h"
#include "verify/wh_datetime.h"
#include "verify/wh_utf8.h"

#include <apr_strings.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#define WIRE_EVENT_TYPE "wire.status"
#define KNOWN_STATUSES "Review, Send Ready, Reject, Error, Exception, Complete"

/* ---- formats: each returns NULL or the reason the value breaks it ------ */

typedef const char *(*str_format)(const char *s, apr_size_t len);

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static const char *fmt_uuid(const char *s, apr_size_t len)
{
    static const char *const reason =
        "must be a canonical UUID (8-4-4-4-12 hex digits)";
    if (len != 36)
        return reason;
    for (apr_size_t i = 0; i < len; i++) {
        int hyphen_slot = i == 8 || i == 13 || i == 18 || i == 23;
        if (hyphen_slot ? s[i] != '-' : !is_hex(s[i]))
            return reason;
    }
    return NULL;
}

/* ^[0-9]*\.[0-9]{2}$ plus a digit before the dot: the spec keeps the
 * leading zero below one unit (0.50), so ".50" is not a form it sends. */
static const char *fmt_amount(const char *s, apr_size_t len)
{
    apr_size_t i = 0;
    while (i < len && is_digit(s[i]))
        i++;
    if (i == 0 || len - i != 3 || s[i] != '.' || !is_digit(s[i + 1])
        || !is_digit(s[i + 2]))
        return "must match N.NN (digits, a dot, two digits)";
    return NULL;
}

static const char *fmt_account_type(const char *s, apr_size_t len)
{
    if (len == 1 && (s[0] == 'D' || s[0] == 'S'))
        return NULL;
    return "must be one of D, S";
}

/* One parser for the check and for the instant the inbox keeps. */
static const char *fmt_datetime(const char *s, apr_size_t len)
{
    return wh_datetime_parse(s, len, NULL) == 0 ? NULL : "must be an RFC 3339 date-time";
}

/* ---- the schema, as data ------------------------------------------------ */

typedef enum { OPTIONAL = 0, REQUIRED = 1 } presence;

typedef struct {
    const char *key;
    presence req;
    int nonempty;
    long max_chars; /* 0: no limit */
    str_format format;
} str_rule;

typedef struct node_rule {
    const char *key;
    presence req;
    int is_array; /* an array whose items all have this shape */
    const str_rule *strings;
    const struct node_rule *children;
} node_rule;

static const str_rule address_strings[] = {
    {"addressLine", OPTIONAL, 0, 0, NULL},
    {"city", OPTIONAL, 0, 0, NULL},
    {"state", OPTIONAL, 0, 0, NULL},
    {"postalCode", OPTIONAL, 0, 0, NULL},
    {NULL, OPTIONAL, 0, 0, NULL}
};

static const node_rule address_child[] = {
    {"address", OPTIONAL, 0, address_strings, NULL},
    {NULL, OPTIONAL, 0, NULL, NULL}
};

static const str_rule institution_strings[] = {
    {"name", OPTIONAL, 0, 0, NULL},
    {"routingNumber", OPTIONAL, 0, 0, NULL},
    {NULL, OPTIONAL, 0, 0, NULL}
};

static const str_rule beneficiary_strings[] = {
    {"accountNumber", OPTIONAL, 1, 34, NULL},
    {"accountType", OPTIONAL, 0, 0, fmt_account_type},
    {"name", OPTIONAL, 1, 35, NULL},
    {NULL, OPTIONAL, 0, 0, NULL}
};

static const node_rule beneficiary_children[] = {
    {"address", OPTIONAL, 0, address_strings, NULL},
    {"institutionInfo", OPTIONAL, 0, institution_strings, address_child},
    {NULL, OPTIONAL, 0, NULL, NULL}
};

static const str_rule originator_strings[] = {
    {"accountNumber", OPTIONAL, 1, 16, NULL},
    {"accountType", OPTIONAL, 0, 0, fmt_account_type},
    {"name", OPTIONAL, 1, 35, NULL},
    {"wireCompanyId", OPTIONAL, 1, 12, NULL},
    {"wireCompanyName", OPTIONAL, 1, 40, NULL},
    {NULL, OPTIONAL, 0, 0, NULL}
};

static const str_rule wire_info_strings[] = {
    {"paymentAmount", OPTIONAL, 1, 12, fmt_amount},
    {"referenceId", OPTIONAL, 1, 35, NULL},
    {"endToEndId", OPTIONAL, 0, 0, fmt_uuid},
    {NULL, OPTIONAL, 0, 0, NULL}
};

static const str_rule original_wire_strings[] = {
    {"remittanceInformation", OPTIONAL, 0, 140, NULL},
    {NULL, OPTIONAL, 0, 0, NULL}
};

static const node_rule original_wire_children[] = {
    {"wireInfo", OPTIONAL, 0, wire_info_strings, NULL},
    {"originatorInfo", OPTIONAL, 0, originator_strings, NULL},
    {"beneficiaryInfo", OPTIONAL, 0, beneficiary_strings,
     beneficiary_children},
    {NULL, OPTIONAL, 0, NULL, NULL}
};

static const str_rule exception_strings[] = {
    {"exceptionCode", REQUIRED, 0, 0, NULL},
    {"exceptionDescription", REQUIRED, 0, 0, NULL},
    {NULL, OPTIONAL, 0, 0, NULL}
};

static const str_rule wire_event_strings[] = {
    {"paymentId", REQUIRED, 1, 0, NULL},
    {"status", REQUIRED, 1, 0, NULL},
    {"IMAD", OPTIONAL, 0, 0, NULL},
    {"OMAD", OPTIONAL, 0, 0, NULL},
    {NULL, OPTIONAL, 0, 0, NULL}
};

static const node_rule wire_event_children[] = {
    {"exceptionInfo", OPTIONAL, 1, exception_strings, NULL},
    {"originalWire", OPTIONAL, 0, original_wire_strings,
     original_wire_children},
    {NULL, OPTIONAL, 0, NULL, NULL}
};

/* Applied to data when eventType is wire.status. */
static const node_rule wire_data_children[] = {
    {"wireEventInfo", REQUIRED, 0, wire_event_strings, wire_event_children},
    {NULL, OPTIONAL, 0, NULL, NULL}
};

/* Every event type: the envelope, data's contents aside. */
static const str_rule envelope_strings[] = {
    {"notificationId", REQUIRED, 0, 0, fmt_uuid},
    {"eventType", REQUIRED, 1, 0, NULL},
    {"eventDateTime", REQUIRED, 0, 0, fmt_datetime},
    {NULL, OPTIONAL, 0, 0, NULL}
};

static const node_rule envelope_children[] = {
    {"data", REQUIRED, 0, NULL, NULL},
    {NULL, OPTIONAL, 0, NULL, NULL}
};

static const node_rule envelope = {
    "", REQUIRED, 0, envelope_strings, envelope_children
};

/* The names the facts are read from (the rules hold the rest). */
static const char N_NOTIFICATION_ID[] = "notificationId";
static const char N_EVENT_TYPE[] = "eventType";
static const char N_EVENT_TIME[] = "eventDateTime";
static const char N_DATA[] = "data";
static const char N_WIRE_EVENT[] = "wireEventInfo";
static const char N_PAYMENT_ID[] = "paymentId";
static const char N_STATUS[] = "status";

/* The member called name (NULL when absent or JSON null). */
static json_object *member(json_object *obj, const char *name)
{
    json_object *v = NULL;
    json_object_object_get_ex(obj, name, &v);
    return v;
}

/* ---- the walker --------------------------------------------------------- */

typedef struct {
    apr_pool_t *p;
    apr_array_header_t *problems;
    int count;
} vctx;

/* Where the walker is: a chain of member names and array indexes back to
 * the root (NULL). It lives on the stack; the JSON Pointer text is built
 * from it only when a problem is reported, because valid bodies (nearly
 * all of them) never need it. */
typedef struct spath {
    const struct spath *up;
    const char *key;   /* NULL: an array item, at index */
    apr_size_t index;
} spath;

static const char *path_text(apr_pool_t *p, const spath *at)
{
    const char *up;
    if (!at)
        return "";
    up = path_text(p, at->up);
    return at->key ? wh_schema_pointer_append(p, up, at->key)
                   : apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, up, at->index);
}

static void add_problem(vctx *c, const char *pointer, const char *reason)
{
    if (c->problems)
        APR_ARRAY_PUSH(c->problems, wh_problem) = (wh_problem){pointer, reason};
    c->count++;
}

static const char *type_reason(json_type t)
{
    switch (t) {
    case json_type_string:
        return "must be a string";
    case json_type_array:
        return "must be an array";
    default:
        return "must be an object";
    }
}

/* A problem with member key of the object at base. */
static void add_member_problem(vctx *c, const spath *base, const char *key,
                               const char *reason)
{
    add_problem(c, wh_schema_pointer_append(c->p, path_text(c->p, base), key),
                reason);
}

/* The member if it has type t. NULL when absent, null, or of another type;
 * the last two are problems only where noted in the file comment. */
static json_object *typed_member(vctx *c, json_object *obj, const spath *base,
                                 const char *key, presence req, json_type t)
{
    json_object *v = member(obj, key); /* null comes back as NULL */

    if (!v) {
        if (req == REQUIRED)
            add_member_problem(c, base, key, "is required");
        return NULL;
    }
    if (!json_object_is_type(v, t)) {
        add_member_problem(c, base, key, type_reason(t));
        return NULL;
    }
    return v;
}

static void check_string(vctx *c, json_object *obj, const spath *base,
                         const str_rule *r)
{
    json_object *v = typed_member(c, obj, base, r->key, r->req,
                                  json_type_string);
    const char *s, *why = NULL;
    apr_size_t len;
    long chars;

    if (!v)
        return;
    s = json_object_get_string(v);
    len = (apr_size_t)json_object_get_string_len(v);
    chars = wh_utf8_length(s, len);
    if (memchr(s, '\0', len))
        why = "must not contain NUL characters";
    else if (chars < 0)
        why = "must be valid UTF-8";
    else if (r->nonempty && len == 0)
        why = "must not be empty";
    else if (r->max_chars && chars > r->max_chars)
        why = apr_psprintf(c->p, "must be at most %ld characters (got %ld)",
                           r->max_chars, chars);
    else if (r->format)
        why = r->format(s, len);
    if (why)
        add_member_problem(c, base, r->key, why);
}

static void check_node(vctx *c, json_object *obj, const spath *at,
                       const node_rule *r);

static void check_array_items(vctx *c, json_object *arr, const spath *at,
                              const node_rule *r)
{
    size_t n = json_object_array_length(arr);
    for (size_t i = 0; i < n; i++) {
        json_object *item = json_object_array_get_idx(arr, i);
        spath item_at = {at, NULL, (apr_size_t)i};
        if (json_object_is_type(item, json_type_object))
            check_node(c, item, &item_at, r);
        else
            add_problem(c, path_text(c->p, &item_at), "must be an object");
    }
}

static void check_child(vctx *c, json_object *obj, const spath *base,
                        const node_rule *r)
{
    json_type t = r->is_array ? json_type_array : json_type_object;
    json_object *v = typed_member(c, obj, base, r->key, r->req, t);
    spath child_at = {base, r->key, 0};

    if (!v)
        return;
    if (r->is_array)
        check_array_items(c, v, &child_at, r);
    else
        check_node(c, v, &child_at, r);
}

static void check_node(vctx *c, json_object *obj, const spath *at,
                       const node_rule *r)
{
    for (const str_rule *s = r->strings; s && s->key; s++)
        check_string(c, obj, at, s);
    for (const node_rule *k = r->children; k && k->key; k++)
        check_child(c, obj, at, k);
}

/* ---- facts -------------------------------------------------------------- */

/* The member's string value copied into p, or NULL when it is not a
 * string: facts are filled even for a body with problems. */
static const char *string_at(apr_pool_t *p, json_object *obj, const char *key)
{
    json_object *v = obj ? member(obj, key) : NULL;
    if (!json_object_is_type(v, json_type_string))
        return NULL;
    return apr_pstrdup(p, json_object_get_string(v));
}

static json_object *object_at(json_object *obj, const char *key)
{
    json_object *v = obj ? member(obj, key) : NULL;
    return json_object_is_type(v, json_type_object) ? v : NULL;
}

/* ---- entry points ------------------------------------------------------- */

int wh_schema_tree_validate(apr_pool_t *p, json_object *root,
                            const wh_schema_opts *opts,
                            apr_array_header_t *problems, wh_facts *facts)
{
    vctx c = {p, problems, 0};
    json_object *data, *event;
    const char *event_type, *status;
    int is_wire;

    if (facts) {
        facts->notification_id = facts->event_type = facts->event_time = NULL;
        facts->payment_id = facts->status = NULL;
        facts->status_known = 0;
    }
    if (!json_object_is_type(root, json_type_object)) {
        add_problem(&c, "", "must be an object");
        return c.count;
    }

    check_node(&c, root, NULL, &envelope);
    event_type = string_at(p, root, N_EVENT_TYPE);
    data = object_at(root, N_DATA);
    is_wire = event_type && strcmp(event_type, WIRE_EVENT_TYPE) == 0;
    if (is_wire && data) {
        const spath data_at = {NULL, "data", 0};
        for (const node_rule *k = wire_data_children; k->key; k++)
            check_child(&c, data, &data_at, k);
    }

    event = is_wire ? object_at(data, N_WIRE_EVENT) : NULL;
    status = string_at(p, event, N_STATUS);
    /* An empty status has already been reported as such. */
    if (status && *status && !wh_schema_status_known(status) && opts
        && opts->unknown_status_reject)
        add_problem(&c, "/data/wireEventInfo/status",
                    "is not one of " KNOWN_STATUSES);

    if (facts) {
        facts->notification_id = string_at(p, root, N_NOTIFICATION_ID);
        facts->event_type = event_type;
        facts->event_time = string_at(p, root, N_EVENT_TIME);
        facts->payment_id = string_at(p, event, N_PAYMENT_ID);
        facts->status = status;
        facts->status_known = wh_schema_status_known(status);
    }
    return c.count;
}
