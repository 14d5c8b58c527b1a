/* The test oracle's strict JSON parser: what wirehook parsed bodies with
 * before shared/verify/wh_schema.c checked them in one pass, kept so that
 * the tests can hold that pass to the same verdicts. Never linked into
 * wirehook itself. Two things changed when it became the oracle: it takes
 * a fresh json-c tokener for every parse, and it leaves the thread's
 * locale to json-c. The thread's kept tokener and the "C" locale object
 * were performance layers; the kept tokener also carried a pending UTF-16
 * high surrogate from a failed parse into the next one (json_tokener_reset
 * leaves it), so a string could decode differently after another body.
 *
 * json-c builds the tree, but its strict mode (0.16) is not RFC 8259:
 * probing showed it accepts single-quoted member names, NaN, Infinity,
 * "-01", "1.", raw control characters inside strings, and its UTF-8 check
 * only looks at byte structure (overlong forms and encoded surrogates pass).
 * So the body goes through three gates: a byte-level pass (size, NUL, BOM),
 * json-c (grammar), then one lexical pass over the bytes json-c accepted
 * that closes the gaps above and validates UTF-8 (only strings can hold
 * non-ASCII bytes once json-c has accepted the text). The lexical pass also
 * owns the nesting limit, because json-c counts a scalar leaf as a level of
 * its own and would otherwise allow 32 levels of arrays but only 31 of
 * objects.
 *
 * Error messages name an offset and a reason, never body content: they go
 * back to the sender and into logs. */
#include "wh_json_tree.h"
#include "verify/wh_utf8.h"

#include <apr_strings.h>
#include <limits.h>
#include <string.h>

/* RFC 8259 whitespace only: json-c agrees, but \f and \v must not be
 * mistaken for padding when deciding what counts as "trailing". */
static int is_json_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static apr_size_t skip_ws(const char *buf, apr_size_t pos, apr_size_t len)
{
    while (pos < len && is_json_ws((unsigned char)buf[pos]))
        pos++;
    return pos;
}

static apr_status_t put_json(void *data)
{
    json_object_put(data);
    return APR_SUCCESS;
}

/* ---- lexical pass over text json-c has already accepted ---------------- */

typedef struct {
    apr_pool_t *p;
    const char *buf;
    apr_size_t end;
    long members; /* name/value pairs written in the text */
} lexer;

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static apr_size_t skip_digits(const char *s, apr_size_t i, apr_size_t n)
{
    while (i < n && is_digit(s[i]))
        i++;
    return i;
}

/* RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int is_json_number(const char *s, apr_size_t n)
{
    apr_size_t i = 0, j;
    if (i < n && s[i] == '-')
        i++;
    if (i < n && s[i] == '0')
        i++;
    else if (i < n && s[i] >= '1' && s[i] <= '9')
        i = skip_digits(s, i, n);
    else
        return 0;
    if (i < n && s[i] == '.') {
        j = skip_digits(s, i + 1, n);
        if (j == i + 1)
            return 0;
        i = j;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        j = skip_digits(s, i, n);
        if (j == i)
            return 0;
        i = j;
    }
    return i == n;
}

static int is_bare_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c)
           || c == '+' || c == '-' || c == '.';
}

static int is_literal(const char *s, apr_size_t n)
{
    return (n == 4 && memcmp(s, "true", 4) == 0)
           || (n == 5 && memcmp(s, "false", 5) == 0)
           || (n == 4 && memcmp(s, "null", 4) == 0)
           || is_json_number(s, n);
}

/* Bytes that end a run of plain string content: the closing quote, an
 * escape, control characters (invalid) and every non-ASCII byte (its
 * UTF-8 sequence is validated where the run stops). */
#define X16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
static const unsigned char string_stop[256] = {
    X16(1), X16(1),                                 /* 0x00-0x1f */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20-0x2f: '"' */
    X16(0), X16(0),                                 /* 0x30-0x4f */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50-0x5f: '\\' */
    X16(0), X16(0),                                 /* 0x60-0x7f */
    X16(1), X16(1), X16(1), X16(1), X16(1), X16(1), X16(1), X16(1)
};
#undef X16


/* *pos is on the opening quote; leaves it after the closing one. Escape
 * syntax is json-c's job; this only catches what json-c lets through. */
static const char *lex_string(lexer *lx, apr_size_t *pos)
{
    const unsigned char *u = (const unsigned char *)lx->buf;
    apr_size_t i = *pos + 1, n;

    for (;;) {
        while (i < lx->end && !string_stop[u[i]])
            i++;
        if (i >= lx->end)
            break;
        if (u[i] == '"') {
            *pos = i + 1;
            return NULL;
        }
        if (u[i] >= 0x80) {
            n = wh_utf8_seq_len(u + i, lx->end - i);
            if (n == 0)
                return apr_psprintf(lx->p, "invalid UTF-8 at offset %"
                                    APR_SIZE_T_FMT, i);
            i += n;
        } else if (u[i] < 0x20) {
            return apr_psprintf(lx->p, "control character inside a string "
                                "at offset %" APR_SIZE_T_FMT, i);
        } else {
            /* A decoded NUL would silently cut the value (or member name)
             * short for every C consumer downstream. */
            if (lx->end - i >= 6 && memcmp(lx->buf + i + 1, "u0000", 5) == 0)
                return apr_psprintf(lx->p, "\\u0000 escape at offset %"
                                    APR_SIZE_T_FMT, i);
            i += 2;
        }
    }
    return apr_psprintf(lx->p, "unterminated string at offset %"
                        APR_SIZE_T_FMT, *pos);
}

static const char *lex_bare(lexer *lx, apr_size_t *pos)
{
    apr_size_t start = *pos, i = start;
    while (i < lx->end && is_bare_char(lx->buf[i]))
        i++;
    if (i == start)
        return apr_psprintf(lx->p, "unexpected character at offset %"
                            APR_SIZE_T_FMT, start);
    if (!is_literal(lx->buf + start, i - start))
        return apr_psprintf(lx->p, "invalid number or literal at offset %"
                            APR_SIZE_T_FMT, start);
    *pos = i;
    return NULL;
}

/* Past the whitespace at pos, if any. Pretty-printed text has a lone
 * space after a colon and a new line with its indentation after most
 * other marks: only a run is worth skipping by words. */
static inline apr_size_t past_ws(const lexer *lx, apr_size_t pos)
{
    if (pos < lx->end && is_json_ws((unsigned char)lx->buf[pos])) {
        pos++;
        if (pos < lx->end && is_json_ws((unsigned char)lx->buf[pos]))
            pos = skip_ws(lx->buf, pos, lx->end);
    }
    return pos;
}

static const char *lex_check(lexer *lx)
{
    int depth = 0;
    apr_size_t pos = 0;
    const char *err = NULL;

    while (pos < lx->end && !err) {
        switch (lx->buf[pos]) {
        case ' ': case '\t': case '\n': case '\r':
            pos = past_ws(lx, pos);
            break;
        case ',':
            pos = past_ws(lx, pos + 1);
            break;
        case ':':
            lx->members++;
            pos = past_ws(lx, pos + 1);
            break;
        case '{': case '[':
            if (++depth > WH_JSON_MAX_DEPTH)
                return apr_psprintf(lx->p, "nesting deeper than %d",
                                    WH_JSON_MAX_DEPTH);
            pos = past_ws(lx, pos + 1);
            break;
        case '}': case ']':
            depth--;
            pos = past_ws(lx, pos + 1);
            break;
        case '"':
            err = lex_string(lx, &pos);
            break;
        case '\'':
            return apr_psprintf(lx->p, "single-quoted string at offset %"
                                APR_SIZE_T_FMT, pos);
        default:
            err = lex_bare(lx, &pos);
            break;
        }
    }
    return err;
}

static int is_container(json_object *o)
{
    json_type t = json_object_get_type(o);
    return t == json_type_object || t == json_type_array;
}

/* json-c keeps the last of duplicate member names without a word. Different
 * parsers pick different duplicates, so such a body means different things
 * to us and to whoever reads it next; comparing the members written in the
 * text with the members in the tree detects it. Depth is bounded by the
 * tokener, so the recursion is too. o is an object or an array; only
 * containers are descended into (most values are strings). */
static long tree_members(json_object *o)
{
    long n = 0;
    if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, name, val) {
            (void)name;
            n++;
            if (is_container(val))
                n += tree_members(val);
        }
    } else {
        size_t len = json_object_array_length(o);
        for (size_t i = 0; i < len; i++) {
            json_object *item = json_object_array_get_idx(o, i);
            if (is_container(item))
                n += tree_members(item);
        }
    }
    return n;
}

/* ---- json-c ------------------------------------------------------------- */

static const char *tokener_error(apr_pool_t *p, enum json_tokener_error err,
                                 apr_size_t offset)
{
    switch (err) {
    case json_tokener_continue:
    case json_tokener_error_parse_eof:
        return "truncated JSON (the body ends inside the value)";
    case json_tokener_error_depth:
        return apr_psprintf(p, "nesting deeper than %d", WH_JSON_MAX_DEPTH);
    default:
        /* json-c's descriptions are fixed texts, safe to pass on. */
        return apr_psprintf(p, "invalid JSON at offset %" APR_SIZE_T_FMT
                            ": %s", offset, json_tokener_error_desc(err));
    }
}

/* Runs json-c over the whole buffer; *end is where the value stopped. */
static const char *tokenize(apr_pool_t *p, const char *buf, apr_size_t len,
                            json_object **out, apr_size_t *end)
{
    const char *err = NULL;
    enum json_tokener_error jerr;
    /* One extra level: json-c counts the scalar leaf, lex_check enforces
     * the real container limit. */
    struct json_tokener *tok = json_tokener_new_ex(WH_JSON_MAX_DEPTH + 1);

    if (!tok)
        return "out of memory while parsing";
    /* Trailing bytes are allowed here only so that they can be reported
     * with their offset below instead of as a generic error. UTF-8 is not
     * json-c's to check: lex_check() validates it more strictly (overlongs,
     * surrogates) in the pass it makes anyway. */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT
                                | JSON_TOKENER_ALLOW_TRAILING_CHARS);
    *out = json_tokener_parse_ex(tok, buf, (int)len);
    jerr = json_tokener_get_error(tok);
    *end = json_tokener_get_parse_end(tok);
    if (jerr == json_tokener_continue) {
        /* A top-level number has no closing token: json-c needs to see
         * the terminating NUL to know the input is over. */
        *out = json_tokener_parse_ex(tok, "", 1);
        jerr = json_tokener_get_error(tok);
        *end = len;
    }
    if (jerr != json_tokener_success) {
        json_object_put(*out);
        *out = NULL;
        err = tokener_error(p, jerr, *end);
    }
    json_tokener_free(tok);
    return err;
}

static const char *check_bytes(apr_pool_t *p, const char *buf, apr_size_t len)
{
    const char *nul;
    if (len >= INT_MAX) /* json-c takes an int length */
        return "body too large to parse";
    if (skip_ws(buf, 0, len) == len)
        return "empty body";
    nul = memchr(buf, '\0', len);
    if (nul)
        return apr_psprintf(p, "NUL byte at offset %" APR_SIZE_T_FMT,
                            (apr_size_t)(nul - buf));
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        return "byte order mark before the JSON value";
    return NULL;
}

const char *wh_json_tree_parse(apr_pool_t *p, const char *buf, apr_size_t len,
                               json_object **out)
{
    json_object *root = NULL;
    apr_size_t end = 0, rest;
    const char *err;

    if (!out)
        return "no output given";
    *out = NULL;
    if (!buf)
        return len ? "no body" : "empty body";
    err = check_bytes(p, buf, len);
    if (!err)
        err = tokenize(p, buf, len, &root, &end);
    if (err)
        return err;

    rest = skip_ws(buf, end, len);
    if (rest < len) {
        err = apr_psprintf(p, "unexpected bytes after the JSON value at "
                           "offset %" APR_SIZE_T_FMT, rest);
    } else {
        lexer lx = {p, buf, end, 0};
        err = lex_check(&lx);
        if (!err && lx.members != (is_container(root) ? tree_members(root) : 0))
            err = "duplicate member name in an object";
    }
    if (err) {
        json_object_put(root);
        return err;
    }
    /* JSON null is a NULL object in json-c: nothing to release. */
    if (root)
        apr_pool_cleanup_register(p, root, put_json, apr_pool_cleanup_null);
    *out = root;
    return NULL;
}
