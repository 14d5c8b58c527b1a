/* Loading the probe vectors (probe/vectors.json, docs/probe.md): every
 * field is checked here, once, so a mistake in the file is a message
 * naming the probe and the field before anything is sent, and building a
 * request (wh_probe_request.c) never meets an unknown transformation.
 * Members the format does not define are refused: a file written for a
 * newer format carries a new version number, and a typo must not turn a
 * probe into the plain valid notification. */
#include "wh_probe_int.h"
#include "verify/wh_signature.h"
#include <apr_hash.h>
#include <apr_strings.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    apr_pool_t *p;
    apr_array_header_t *errors;
    const char *where; /* "probes[3] (signature.forged)" */
} loader;

static void problem(loader *ld, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(loader *ld, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *msg = apr_pvsprintf(ld->p, fmt, ap);
    va_end(ap);
    APR_ARRAY_PUSH(ld->errors, const char *) = apr_psprintf(
        ld->p, "%s%s%s: %s", ld->where, *ld->where ? ": " : "", field, msg);
}

/* Refuses members of obj not in allowed (NULL-terminated). */
static void only_members(loader *ld, json_object *obj, const char *field,
                         const char *const *allowed)
{
    json_object_object_foreach(obj, key, val)
    {
        (void)val;
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            ok |= strcmp(*a, key) == 0;
        if (!ok)
            problem(ld, field, "unknown member '%s'", key);
    }
}

/* The member (present, JSON null included) or NULL with *present 0. */
static json_object *get(json_object *obj, const char *key, int *present)
{
    json_object *v = NULL;
    *present = json_object_object_get_ex(obj, key, &v) ? 1 : 0;
    return v;
}

static const char *string_member(loader *ld, json_object *obj,
                                 const char *field, const char *key,
                                 int required)
{
    int present;
    json_object *v = get(obj, key, &present);
    if (!present) {
        if (required)
            problem(ld, field, "'%s' is required", key);
        return NULL;
    }
    if (!json_object_is_type(v, json_type_string)) {
        problem(ld, field, "'%s' must be a string", key);
        return NULL;
    }
    return apr_pstrmemdup(ld->p, json_object_get_string(v),
                          (apr_size_t)json_object_get_string_len(v));
}

static int int_member(loader *ld, json_object *obj, const char *field,
                      const char *key, long lo, long hi, long *out)
{
    int present;
    json_object *v = get(obj, key, &present);
    if (!present) {
        problem(ld, field, "'%s' is required", key);
        return -1;
    }
    if (!json_object_is_type(v, json_type_int)) {
        problem(ld, field, "'%s' must be a whole number", key);
        return -1;
    }
    int64_t n = json_object_get_int64(v);
    if (n < lo || n > hi) {
        problem(ld, field, "'%s' must be %ld to %ld", key, lo, hi);
        return -1;
    }
    *out = (long)n;
    return 0;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* "text" or "hex" (bytes that JSON text cannot hold: invalid UTF-8). */
static int bytes_member(loader *ld, json_object *obj, const char *field,
                        const char **out, apr_size_t *len)
{
    int has_text, has_hex;
    json_object *t = get(obj, "text", &has_text);
    json_object *h = get(obj, "hex", &has_hex);
    if (has_text == has_hex) {
        problem(ld, field, "give exactly one of 'text' and 'hex'");
        return -1;
    }
    if (has_text) {
        if (!json_object_is_type(t, json_type_string)) {
            problem(ld, field, "'text' must be a string");
            return -1;
        }
        *len = (apr_size_t)json_object_get_string_len(t);
        *out = apr_pstrmemdup(ld->p, json_object_get_string(t), *len);
        return 0;
    }
    const char *s = json_object_is_type(h, json_type_string)
                        ? json_object_get_string(h)
                        : NULL;
    apr_size_t n = s ? strlen(s) : 1;
    if (!s || n % 2) {
        problem(ld, field, "'hex' must be a string of hex digit pairs");
        return -1;
    }
    char *b = apr_palloc(ld->p, n / 2 + 1);
    for (apr_size_t i = 0; i < n; i += 2) {
        int hi = hex_value(s[i]), lo = hex_value(s[i + 1]);
        if (hi < 0 || lo < 0) {
            problem(ld, field, "'hex' must be a string of hex digit pairs");
            return -1;
        }
        b[i / 2] = (char)(hi << 4 | lo);
    }
    b[n / 2] = '\0';
    *out = b;
    *len = n / 2;
    return 0;
}

/* A string that goes into a header: no control characters, so a vector
 * cannot add a header line of its own. */
static const char *header_text(loader *ld, const char *field, const char *s)
{
    for (const char *c = s; c && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            problem(ld, field, "a header value holds no control characters");
            return NULL;
        }
    return s;
}

static int pointer_ok(const char *at)
{
    return at && at[0] == '/';
}

/* ------------------------------------------------------------ body ops --- */

static const struct {
    const char *name;
    wh_body_op_kind kind;
    const char *const allowed[5];
} body_ops[] = {
    {"set", WH_BODY_SET, {"op", "at", "value", NULL}},
    {"remove", WH_BODY_REMOVE, {"op", "at", NULL}},
    {"fill", WH_BODY_FILL, {"op", "at", "text", "length", NULL}},
    {"nest", WH_BODY_NEST, {"op", "at", "depth", NULL}},
    {"pad", WH_BODY_PAD, {"op", "at", "beyond_max_body_size", NULL}},
    {"duplicate", WH_BODY_DUPLICATE, {"op", "at", "value", NULL}},
    {"raw", WH_BODY_RAW, {"op", "text", "hex", NULL}},
    {"prepend", WH_BODY_PREPEND, {"op", "text", "hex", NULL}},
    {"append", WH_BODY_APPEND, {"op", "text", "hex", NULL}},
    {"replace", WH_BODY_REPLACE, {"op", "find", "text", "hex", NULL}},
};

static int is_byte_op(wh_body_op_kind k)
{
    return k >= WH_BODY_DUPLICATE;
}

static int parse_body_op(loader *ld, json_object *o, const char *field,
                         wh_body_op *op)
{
    const char *name;
    int present;
    size_t i;

    memset(op, 0, sizeof(*op));
    if (!json_object_is_type(o, json_type_object)) {
        problem(ld, field, "must be an object");
        return -1;
    }
    if (!(name = string_member(ld, o, field, "op", 1)))
        return -1;
    for (i = 0; i < sizeof(body_ops) / sizeof(body_ops[0]); i++)
        if (strcmp(body_ops[i].name, name) == 0)
            break;
    if (i == sizeof(body_ops) / sizeof(body_ops[0])) {
        problem(ld, field, "unknown op '%s'", name);
        return -1;
    }
    op->kind = body_ops[i].kind;
    only_members(ld, o, field, body_ops[i].allowed);
    int before = ld->errors->nelts;
    if (op->kind == WH_BODY_SET || op->kind == WH_BODY_DUPLICATE) {
        op->value = get(o, "value", &present);
        if (!present)
            problem(ld, field, "'value' is required");
    }
    switch (op->kind) {
    case WH_BODY_SET:
    case WH_BODY_DUPLICATE:
    case WH_BODY_REMOVE:
    case WH_BODY_FILL:
    case WH_BODY_NEST:
    case WH_BODY_PAD:
        op->at = string_member(ld, o, field, "at", 1);
        if (op->at && !pointer_ok(op->at))
            problem(ld, field,
                    "'at' must be a JSON pointer below the root "
                    "(\"/name...\")");
        if (op->at && op->kind == WH_BODY_DUPLICATE && strchr(op->at + 1, '/'))
            problem(ld, field, "duplicate works on a member of the root only");
        break;
    default: break;
    }
    switch (op->kind) {
    case WH_BODY_FILL:
        bytes_member(ld, o, field, &op->text, &op->text_len);
        int_member(ld, o, field, "length", 0, 1000000, &op->n);
        break;
    case WH_BODY_NEST:
        int_member(ld, o, field, "depth", 1, 10000, &op->n);
        break;
    case WH_BODY_PAD:
        int_member(ld, o, field, "beyond_max_body_size", 1, 1024, &op->n);
        break;
    case WH_BODY_RAW:
    case WH_BODY_PREPEND:
    case WH_BODY_APPEND:
        bytes_member(ld, o, field, &op->text, &op->text_len);
        break;
    case WH_BODY_REPLACE:
        op->find = string_member(ld, o, field, "find", 1);
        op->find_len = op->find ? strlen(op->find) : 0;
        if (op->find && !op->find_len)
            problem(ld, field, "'find' must not be empty");
        bytes_member(ld, o, field, &op->text, &op->text_len);
        break;
    default: break;
    }
    return ld->errors->nelts == before ? 0 : -1;
}

/* allow_tree: tree ops may still run (no byte op before this list). */
static apr_array_header_t *parse_body_ops(loader *ld, json_object *arr,
                                          const char *name, int allow_tree,
                                          int allow_pad, int *has_byte_op)
{
    apr_array_header_t *ops = apr_array_make(ld->p, 4, sizeof(wh_body_op));
    if (!json_object_is_type(arr, json_type_array)) {
        problem(ld, name, "must be an array of ops");
        return ops;
    }
    size_t n = json_object_array_length(arr);
    int bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const char *field = apr_psprintf(ld->p, "%s[%" APR_SIZE_T_FMT "]",
                                         name, (apr_size_t)i);
        wh_body_op op;
        if (parse_body_op(ld, json_object_array_get_idx(arr, i), field, &op))
            continue;
        if (is_byte_op(op.kind))
            bytes = 1;
        else if (bytes || !allow_tree)
            problem(ld, field, "a JSON op after an op on the bytes");
        if (op.kind == WH_BODY_PAD && (!allow_pad || i + 1 != n))
            problem(ld, field, "pad must be the last op of 'body'");
        APR_ARRAY_PUSH(ops, wh_body_op) = op;
    }
    *has_byte_op |= bytes;
    return ops;
}

/* --------------------------------------------------------------- parts --- */

static const char *const auth_names[] = {"valid", "none", "wrong_password",
                                         "unknown_user", NULL};

static void parse_auth(loader *ld, json_object *v, wh_probe_parts *pp)
{
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        for (int i = 0; auth_names[i]; i++)
            if (strcmp(auth_names[i], s) == 0) {
                pp->auth = (wh_auth_kind)i;
                return;
            }
        problem(ld, "auth", "unknown value '%s'", s);
        return;
    }
    if (json_object_is_type(v, json_type_object)) {
        static const char *const allowed[] = {"header", NULL};
        only_members(ld, v, "auth", allowed);
        pp->auth_header = header_text(
            ld, "auth", string_member(ld, v, "auth", "header", 1));
        pp->auth = WH_AUTH_HEADER;
        return;
    }
    problem(ld, "auth", "must be a string or {\"header\": ...}");
}

static void parse_ts(loader *ld, json_object *v, const char *field,
                     int allow_repeat, wh_ts_spec *ts)
{
    static const char *const allowed[] = {"omit",   "shift",  "unit",
                                          "suffix", "repeat", NULL};
    int present;
    json_object *m;

    memset(ts, 0, sizeof(*ts));
    if (!json_object_is_type(v, json_type_object)) {
        problem(ld, field, "must be an object");
        return;
    }
    only_members(ld, v, field, allowed);
    m = get(v, "omit", &present);
    if (present) {
        if (!json_object_is_type(m, json_type_boolean)
            || !json_object_get_boolean(m))
            problem(ld, field, "'omit' must be true");
        if (json_object_object_length(v) != 1)
            problem(ld, field, "'omit' goes alone");
        ts->omit = 1;
        return;
    }
    m = get(v, "shift", &present);
    if (present) {
        static const char *const sa[] = {"tolerance", "seconds", NULL};
        const char *sf = apr_pstrcat(ld->p, field, ".shift", NULL);
        if (!json_object_is_type(m, json_type_object)) {
            problem(ld, sf, "must be an object");
        }
        else {
            only_members(ld, m, sf, sa);
            int_member(ld, m, sf, "tolerance", -10, 10, &ts->tolerances);
            int_member(ld, m, sf, "seconds", -86400, 86400, &ts->seconds);
        }
    }
    m = get(v, "unit", &present);
    if (present) {
        if (!json_object_is_type(m, json_type_string)
            || strcmp(json_object_get_string(m), "other"))
            problem(ld, field, "'unit' must be \"other\"");
        ts->other_unit = 1;
    }
    if (get(v, "suffix", &present), present)
        ts->suffix = header_text(ld, field,
                                 string_member(ld, v, field, "suffix", 1));
    m = get(v, "repeat", &present);
    if (present) {
        if (!allow_repeat) {
            problem(ld, field, "a repeat cannot repeat");
        }
        else {
            wh_ts_spec *r = apr_palloc(ld->p, sizeof(*r));
            parse_ts(ld, m, apr_pstrcat(ld->p, field, ".repeat", NULL), 0, r);
            if (r->omit)
                problem(ld, field, "a repeated header cannot be omitted");
            ts->repeat = r;
        }
    }
}

static const char *const sig_names[] = {
    "valid",     "random", "truncate", "append", "replace",
    "uppercase", "prefix", "omit",     "repeat", NULL};

static void parse_sig(loader *ld, json_object *v, const char *field,
                      int allow_repeat, wh_sig_spec *sg)
{
    const char *name;
    int i;

    memset(sg, 0, sizeof(*sg));
    if (!json_object_is_type(v, json_type_object)) {
        problem(ld, field, "must be an object");
        return;
    }
    if (!(name = string_member(ld, v, field, "op", 1)))
        return;
    for (i = 0; sig_names[i]; i++)
        if (strcmp(sig_names[i], name) == 0)
            break;
    if (!sig_names[i]) {
        problem(ld, field, "unknown op '%s'", name);
        return;
    }
    sg->kind = (wh_sig_kind)i;
    static const char *const bare[] = {"op", NULL};
    static const char *const len[] = {"op", "length", NULL};
    static const char *const text[] = {"op", "text", NULL};
    static const char *const idx[] = {"op", "index", "text", NULL};
    static const char *const first[] = {"op", "first", NULL};
    switch (sg->kind) {
    case WH_SIG_TRUNCATE:
        only_members(ld, v, field, len);
        int_member(ld, v, field, "length", 0, WH_SIG_HEX_LEN - 1, &sg->n);
        break;
    case WH_SIG_APPEND:
    case WH_SIG_PREFIX:
        only_members(ld, v, field, text);
        sg->text = header_text(ld, field,
                               string_member(ld, v, field, "text", 1));
        break;
    case WH_SIG_REPLACE:
        only_members(ld, v, field, idx);
        int_member(ld, v, field, "index", 0, WH_SIG_HEX_LEN - 1, &sg->n);
        sg->text = header_text(ld, field,
                               string_member(ld, v, field, "text", 1));
        break;
    case WH_SIG_REPEAT: {
        only_members(ld, v, field, first);
        int present;
        json_object *f = get(v, "first", &present);
        if (!allow_repeat) {
            problem(ld, field, "a repeat cannot repeat");
        }
        else if (!present) {
            problem(ld, field, "'first' is required");
        }
        else {
            wh_sig_spec *fs = apr_palloc(ld->p, sizeof(*fs));
            parse_sig(ld, f, apr_pstrcat(ld->p, field, ".first", NULL), 0, fs);
            if (fs->kind == WH_SIG_OMIT)
                problem(ld, field, "a repeated header cannot be omitted");
            sg->first = fs;
        }
        break;
    }
    default: only_members(ld, v, field, bare); break;
    }
}

static const char *const url_names[] = {"same", "scheme", "host", "port",
                                        "path", "query",  NULL};

static void parse_sign(loader *ld, json_object *v, wh_probe_parts *pp)
{
    static const char *const allowed[] = {"secret", "method", "url", NULL};
    int present;
    json_object *m;

    if (!json_object_is_type(v, json_type_object)) {
        problem(ld, "sign", "must be an object");
        return;
    }
    only_members(ld, v, "sign", allowed);
    if (get(v, "secret", &present), present) {
        const char *s = string_member(ld, v, "sign", "secret", 1);
        if (s && strcmp(s, "other"))
            problem(ld, "sign", "'secret' must be \"other\"");
        pp->sign_other_secret = 1;
    }
    if (get(v, "method", &present), present)
        pp->sign_method = string_member(ld, v, "sign", "method", 1);
    m = get(v, "url", &present);
    if (present) {
        const char *s = json_object_is_type(m, json_type_string)
                            ? json_object_get_string(m)
                            : "";
        int i;
        for (i = 0; url_names[i]; i++)
            if (strcmp(url_names[i], s) == 0)
                break;
        if (!url_names[i])
            problem(ld, "sign",
                    "'url' must be one of scheme, host, port, "
                    "path, query");
        else
            pp->sign_url = (wh_url_change)i;
    }
}

/* A method token (RFC 9110): what curl and httpd will pass as is. */
static int method_ok(const char *m)
{
    if (!m || !*m || strlen(m) > 32)
        return 0;
    for (const char *c = m; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z')
              || *c == '-'))
            return 0;
    return 1;
}

static const char *const request_members[] = {
    "method", "content_type",  "auth",   "timestamp", "sign", "signature",
    "body",   "after_signing", "replay", "pace",      NULL};

/* The request members of obj, over base (a copy is returned). */
static wh_probe_parts *parse_parts(loader *ld, json_object *obj,
                                   const wh_probe_parts *base)
{
    wh_probe_parts *pp = apr_pmemdup(ld->p, base, sizeof(*base));
    int present, byte_ops = 0;
    json_object *m;

    if ((m = get(obj, "method", &present)), present) {
        pp->method = string_member(ld, obj, "method", "method", 1);
        if (pp->method && !method_ok(pp->method))
            problem(ld, "method", "must be an HTTP method name");
    }
    if ((m = get(obj, "content_type", &present)), present) {
        if (m == NULL) {
            pp->content_type_omitted = 1;
            pp->content_type = NULL;
        }
        else {
            pp->content_type = header_text(
                ld, "content_type",
                string_member(ld, obj, "content_type", "content_type", 1));
        }
    }
    if ((m = get(obj, "auth", &present)), present)
        parse_auth(ld, m, pp);
    if ((m = get(obj, "timestamp", &present)), present)
        parse_ts(ld, m, "timestamp", 1, &pp->timestamp);
    if ((m = get(obj, "sign", &present)), present)
        parse_sign(ld, m, pp);
    if ((m = get(obj, "signature", &present)), present)
        parse_sig(ld, m, "signature", 1, &pp->signature);
    if ((m = get(obj, "body", &present)), present)
        pp->body = parse_body_ops(ld, m, "body", 1, 1, &byte_ops);
    if ((m = get(obj, "after_signing", &present)), present)
        pp->after_signing = parse_body_ops(ld, m, "after_signing", !byte_ops,
                                           0, &byte_ops);
    if ((m = get(obj, "replay", &present)), present) {
        const char *s = string_member(ld, obj, "replay", "replay", 1);
        if (s && strcmp(s, "at_once") == 0)
            pp->replay = WH_REPLAY_AT_ONCE;
        else if (s && strcmp(s, "after_pause") == 0)
            pp->replay = WH_REPLAY_AFTER_PAUSE;
        else if (s)
            problem(ld, "replay", "must be at_once or after_pause");
    }
    if ((m = get(obj, "pace", &present)), present) {
        const char *s = string_member(ld, obj, "pace", "pace", 1);
        if (s && strcmp(s, "late_last_byte") == 0)
            pp->pace = WH_PACE_LATE_LAST_BYTE;
        else if (s && strcmp(s, "trickle") == 0)
            pp->pace = WH_PACE_TRICKLE;
        else if (s && strcmp(s, "stall") == 0)
            pp->pace = WH_PACE_STALL;
        else if (s)
            problem(ld, "pace", "must be late_last_byte, trickle or stall");
    }
    if (pp->pace == WH_PACE_LATE_LAST_BYTE
        && (get(obj, "timestamp", &present), present))
        problem(ld, "timestamp", "late_last_byte sets the timestamp itself");
    if (pp->pace && pp->replay)
        problem(ld, "pace", "a paced probe cannot be a replay too");
    return pp;
}

/* --------------------------------------------------------- expectation --- */

static const char *const expect_names[] = {"accepted", "refused",   "once",
                                           "ends",     "same_time", NULL};

static int expect_index(const char *s)
{
    for (int i = 0; s && expect_names[i]; i++)
        if (strcmp(expect_names[i], s) == 0)
            return i;
    return -1;
}

static const struct {
    const char *key;
    const char *const values[4];
} expect_keys[] = {
    {"UnknownStatus", {"accept", "reject", NULL}},
    {"TimestampUnit", {"auto", "seconds", "milliseconds", NULL}},
};

static void parse_expect(loader *ld, json_object *v, wh_probe *pr)
{
    if (json_object_is_type(v, json_type_string)) {
        int e = expect_index(json_object_get_string(v));
        if (e < 0)
            problem(ld, "expect", "unknown class '%s'",
                    json_object_get_string(v));
        else
            pr->expect = (wh_probe_expect)e;
        return;
    }
    if (!json_object_is_type(v, json_type_object)) {
        problem(ld, "expect", "must be a class or {\"config\": KEY, ...}");
        return;
    }
    const char *key = string_member(ld, v, "expect", "config", 1);
    size_t k;
    if (!key)
        return;
    for (k = 0; k < sizeof(expect_keys) / sizeof(expect_keys[0]); k++)
        if (strcmp(expect_keys[k].key, key) == 0)
            break;
    if (k == sizeof(expect_keys) / sizeof(expect_keys[0])) {
        problem(ld, "expect",
                "no expectation by the key '%s' (UnknownStatus, "
                "TimestampUnit)",
                key);
        return;
    }
    const char *allowed[5] = {"config", NULL};
    for (int i = 0; expect_keys[k].values[i]; i++) {
        const char *name = expect_keys[k].values[i];
        allowed[i + 1] = name;
        const char *cls = string_member(ld, v, "expect", name, 1);
        int e = expect_index(cls);
        if (cls && e != WH_EXPECT_ACCEPTED && e != WH_EXPECT_REFUSED)
            problem(ld, "expect", "'%s' must be accepted or refused", name);
        pr->expect_by[i] = cls;
    }
    only_members(ld, v, "expect", allowed);
    pr->expect_key = expect_keys[k].key;
    pr->expect = WH_EXPECT_REFUSED;
}

wh_probe_expect wh_probe_expectation(const wh_probe *probe,
                                     const wh_config *cfg)
{
    int i = 0;
    if (!probe->expect_key || !cfg)
        return probe->expect;
    if (strcmp(probe->expect_key, "UnknownStatus") == 0)
        i = cfg->unknown_status_reject ? 1 : 0;
    else if (strcmp(probe->expect_key, "TimestampUnit") == 0)
        i = cfg->timestamp_unit == WH_TS_SECONDS        ? 1
            : cfg->timestamp_unit == WH_TS_MILLISECONDS ? 2
                                                        : 0;
    return probe->expect_by[i]
               ? (wh_probe_expect)expect_index(probe->expect_by[i])
               : probe->expect;
}

wh_probe_replay wh_probe_replay_of(const wh_probe_parts *parts)
{
    return parts ? parts->replay : WH_REPLAY_NONE;
}

int wh_probe_at_second_start(const wh_probe_parts *parts)
{
    return parts && (parts->timestamp.tolerances || parts->timestamp.seconds);
}

wh_probe_pace wh_probe_pace_of(const wh_probe_parts *parts)
{
    return parts ? parts->pace : WH_PACE_NONE;
}

/* -------------------------------------------------------------- probes --- */

static const char *const severity_names[] = {"critical", "high", "warning",
                                             "info", NULL};

const char *wh_probe_severity_name(wh_probe_severity s)
{
    return (unsigned)s < 4 ? severity_names[s] : "?";
}

const char *wh_probe_expect_name(wh_probe_expect e)
{
    return (unsigned)e < 5 ? expect_names[e] : "?";
}

/* ids are lowercase words joined by dots: --only names groups by them */
static int id_ok(const char *id)
{
    int word = 0;
    if (!id || !*id || strlen(id) > 80)
        return 0;
    for (const char *c = id; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')
            word++;
        else if (*c == '.' && word)
            word = 0;
        else
            return 0;
    }
    return word > 0;
}

static void parse_statuses(loader *ld, json_object *v, wh_probe *pr)
{
    if (!json_object_is_type(v, json_type_array)
        || !json_object_array_length(v)) {
        problem(ld, "status", "must be a non-empty array of status codes");
        return;
    }
    size_t n = json_object_array_length(v);
    int *st = apr_palloc(ld->p, sizeof(int) * n);
    for (size_t i = 0; i < n; i++) {
        json_object *s = json_object_array_get_idx(v, i);
        int64_t c = json_object_is_type(s, json_type_int)
                        ? json_object_get_int64(s)
                        : 0;
        if (c < 100 || c > 599)
            problem(ld, "status",
                    "[%" APR_SIZE_T_FMT "] must be an HTTP status code",
                    (apr_size_t)i);
        st[i] = (int)c;
    }
    pr->statuses = st;
    pr->n_statuses = (int)n;
}

static const char *const probe_members[] = {
    "id",        "description", "severity",      "expect", "status",    "kind",
    "timing",    "method",      "content_type",  "auth",   "timestamp", "sign",
    "signature", "body",        "after_signing", "replay", "pace",      NULL};

static void parse_timing(loader *ld, json_object *v, wh_probe *pr)
{
    static const char *const allowed[] = {"a", "b", "significance_z",
                                          "min_difference", NULL};
    int present;
    if (!json_object_is_type(v, json_type_object)) {
        problem(ld, "timing", "must be an object");
        return;
    }
    only_members(ld, v, "timing", allowed);
    for (int side = 0; side < 2; side++) {
        const char *name = side ? "b" : "a";
        json_object *o = get(v, name, &present);
        if (!present || !json_object_is_type(o, json_type_object)) {
            problem(ld, "timing", "'%s' must be an object of request parts",
                    name);
            continue;
        }
        only_members(ld, o, apr_pstrcat(ld->p, "timing.", name, NULL),
                     request_members);
        const wh_probe_parts *pp = parse_parts(ld, o, pr->parts);
        if (side)
            pr->timing_b = pp;
        else
            pr->timing_a = pp;
    }
    json_object *z = get(v, "significance_z", &present);
    json_object *d = get(v, "min_difference", &present);
    pr->significance_z = z
                                 && (json_object_is_type(z, json_type_double)
                                     || json_object_is_type(z, json_type_int))
                             ? json_object_get_double(z)
                             : -1;
    pr->min_difference = d
                                 && (json_object_is_type(d, json_type_double)
                                     || json_object_is_type(d, json_type_int))
                             ? json_object_get_double(d)
                             : -1;
    if (pr->significance_z <= 0)
        problem(ld, "timing", "'significance_z' must be a number above 0");
    if (pr->min_difference < 0)
        problem(ld, "timing", "'min_difference' must be a number, 0 or more");
}

static void parse_probe(loader *ld, json_object *o, int index,
                        const wh_probe_parts *defaults, apr_hash_t *ids,
                        wh_probe *pr)
{
    int present;
    json_object *m;

    pr->index = index;
    ld->where = apr_psprintf(ld->p, "probes[%d]", index);
    if (!json_object_is_type(o, json_type_object)) {
        problem(ld, "probe", "must be an object");
        return;
    }
    pr->id = string_member(ld, o, "id", "id", 1);
    if (pr->id) {
        ld->where = apr_psprintf(ld->p, "probes[%d] (%s)", index, pr->id);
        if (!id_ok(pr->id))
            problem(ld, "id", "must be lowercase words joined by dots");
        else if (apr_hash_get(ids, pr->id, APR_HASH_KEY_STRING))
            problem(ld, "id", "used twice");
        else
            apr_hash_set(ids, pr->id, APR_HASH_KEY_STRING, pr);
    }
    only_members(ld, o, "probe", probe_members);
    pr->description = string_member(ld, o, "description", "description", 1);
    if (pr->description && !*pr->description)
        problem(ld, "description", "must not be empty");
    const char *sev = string_member(ld, o, "severity", "severity", 1);
    int s;
    for (s = 0; sev && severity_names[s]; s++)
        if (strcmp(severity_names[s], sev) == 0)
            break;
    if (sev && !severity_names[s])
        problem(ld, "severity", "must be critical, high, warning or info");
    else
        pr->severity = (wh_probe_severity)s;
    if ((m = get(o, "expect", &present)), present)
        parse_expect(ld, m, pr);
    else
        problem(ld, "expect", "is required");
    if ((m = get(o, "status", &present)), present)
        parse_statuses(ld, m, pr);
    pr->parts = parse_parts(ld, o, defaults);
    const char *kind = NULL;
    if ((m = get(o, "kind", &present)), present)
        kind = string_member(ld, o, "kind", "kind", 1);
    if (kind && strcmp(kind, "timing") == 0)
        pr->is_timing = 1;
    else if (kind && strcmp(kind, "request"))
        problem(ld, "kind", "must be request or timing");
    m = get(o, "timing", &present);
    if (pr->is_timing != present)
        problem(ld, "timing", "goes with kind timing, and only there");
    else if (present)
        parse_timing(ld, m, pr);

    /* the expectations that only one kind of probe can have */
    const wh_probe_parts *pp = pr->parts;
    if ((pr->expect == WH_EXPECT_ONCE) != (pp->replay != WH_REPLAY_NONE))
        problem(ld, "expect", "once goes with replay, and only there");
    if ((pr->expect == WH_EXPECT_ENDS) != (pp->pace == WH_PACE_STALL))
        problem(ld, "expect", "ends goes with pace stall, and only there");
    if ((pr->expect == WH_EXPECT_SAME_TIME) != pr->is_timing)
        problem(ld, "expect",
                "same_time goes with kind timing, and only there");
}

static apr_status_t put_json(void *data)
{
    json_object_put(data);
    return APR_SUCCESS;
}

const char *wh_probe_set_load(apr_pool_t *p, const char *text, apr_size_t len,
                              wh_probe_set **out)
{
    loader ld = {p, apr_array_make(p, 4, sizeof(const char *)), ""};
    json_tokener *tok = json_tokener_new_ex(64);
    json_object *root;
    int present;

    *out = NULL;
    if (!tok)
        return "out of memory";
    json_tokener_set_flags(tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    root = len <= INT32_MAX ? json_tokener_parse_ex(tok, text, (int)len)
                            : NULL;
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success) {
        if (root)
            json_object_put(root);
        return apr_psprintf(p, "not JSON: %s", json_tokener_error_desc(jerr));
    }
    apr_pool_cleanup_register(p, root, put_json, apr_pool_cleanup_null);
    while (used < len
           && (text[used] == ' ' || text[used] == '\n' || text[used] == '\r'
               || text[used] == '\t'))
        used++;
    if (used != len)
        return "not JSON: bytes after the document";
    if (!json_object_is_type(root, json_type_object))
        return "not a JSON object";

    wh_probe_set *set = apr_pcalloc(p, sizeof(*set));
    const char *format = string_member(&ld, root, "file", "format", 1);
    if (format && strcmp(format, WH_PROBE_VECTORS_FORMAT))
        return apr_psprintf(p, "format '%s' is not %s", format,
                            WH_PROBE_VECTORS_FORMAT);
    long version = 0;
    if (int_member(&ld, root, "file", "version", 1, 1000000, &version) == 0
        && version != WH_PROBE_VECTORS_VERSION)
        return apr_psprintf(p,
                            "vectors version %ld: this runner reads version "
                            "%d",
                            version, WH_PROBE_VECTORS_VERSION);
    set->version = (int)version;
    static const char *const top[] = {
        "format",       "version", "about", "other_secret",
        "notification", "probes",  NULL};
    only_members(&ld, root, "file", top);
    set->other_secret = string_member(&ld, root, "file", "other_secret", 1);
    if (set->other_secret && !*set->other_secret)
        problem(&ld, "file", "'other_secret' must not be empty");
    json_object *n = get(root, "notification", &present);
    if (!present || !json_object_is_type(n, json_type_object))
        problem(&ld, "file", "'notification' must be an object");
    set->notification = n;
    json_object *probes = get(root, "probes", &present);
    set->probes = apr_array_make(p, 128, sizeof(const wh_probe *));
    if (!present || !json_object_is_type(probes, json_type_array)
        || !json_object_array_length(probes)) {
        problem(&ld, "file", "'probes' must be a non-empty array");
    }
    else {
        wh_probe_parts *defaults = apr_pcalloc(p, sizeof(*defaults));
        apr_hash_t *ids = apr_hash_make(p);
        defaults->method = "POST";
        defaults->content_type = "application/json";
        size_t count = json_object_array_length(probes);
        for (size_t i = 0; i < count; i++) {
            wh_probe *pr = apr_pcalloc(p, sizeof(*pr));
            parse_probe(&ld, json_object_array_get_idx(probes, i), (int)i,
                        defaults, ids, pr);
            APR_ARRAY_PUSH(set->probes, const wh_probe *) = pr;
        }
    }
    if (ld.errors->nelts)
        return apr_array_pstrcat(p, ld.errors, '\n');
    *out = set;
    return NULL;
}

/* ----------------------------------------------------------- selection --- */

static int entry_selects(const char *e, apr_size_t elen, const char *id)
{
    return strlen(id) >= elen && strncmp(id, e, elen) == 0
           && (id[elen] == '\0' || id[elen] == '.');
}

int wh_probe_selected(const char *only, const char *id)
{
    if (!only)
        return 1;
    for (const char *s = only; *s;) {
        const char *end = strchr(s, ',');
        apr_size_t n = end ? (apr_size_t)(end - s) : strlen(s);
        if (n && entry_selects(s, n, id))
            return 1;
        if (!end)
            break;
        s = end + 1;
    }
    return 0;
}

const char *wh_probe_unmatched(apr_pool_t *p, const wh_probe_set *set,
                               const char *only)
{
    apr_array_header_t *bad = apr_array_make(p, 2, sizeof(const char *));
    if (!only)
        return NULL;
    for (const char *s = only; *s;) {
        const char *end = strchr(s, ',');
        apr_size_t n = end ? (apr_size_t)(end - s) : strlen(s);
        int hit = 0;
        for (int i = 0; n && i < set->probes->nelts && !hit; i++)
            hit = entry_selects(
                s, n, APR_ARRAY_IDX(set->probes, i, const wh_probe *)->id);
        if (!hit)
            APR_ARRAY_PUSH(bad, const char *) = apr_pstrmemdup(p, s, n);
        if (!end)
            break;
        s = end + 1;
    }
    return bad->nelts ? apr_array_pstrcat(p, bad, ',') : NULL;
}
