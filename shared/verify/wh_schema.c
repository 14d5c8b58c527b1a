/* The notification schema, and the one pass over a body that checks it.
 *
 * Why one pass: a body has to be read byte by byte anyway, because json-c's
 * strict mode is not RFC 8259 (it lets single quotes, NaN, "-01", raw
 * control characters, overlong UTF-8 and encoded surrogates through, and
 * keeps the last of duplicate member names without a word). Building a
 * json-c tree on top of that pass (heap objects, a hash table per object)
 * cost more than the HMAC, and the schema was then checked by walking the
 * tree. So this pass is the parser: it checks the grammar, the UTF-8, the
 * nesting and the member names, checks each member against the schema
 * table as it reads it, takes the facts as it goes, and builds no tree.
 * The tree-based validator it replaced is tests/oracle/wh_schema_tree.c:
 * the schema tests and the fuzz_oracle target hold the two to the same
 * verdicts, problems (in the same order) and facts.
 *
 * The schema is data: a table per object of the spec, one row per member,
 * and the scanner is the only code that reports problems. Every problem is
 * collected rather than stopping at the first, because a sender fixing a
 * rejected notification should see all of what is wrong at once. Each
 * member gets at most one problem of its own (the first rule it breaks),
 * then those inside its value. Problems are listed in table order, not in
 * the order the body writes its members: the list is the same for any
 * member order, and members arrive in any order, so each object keeps what
 * it found per row and lists it when it closes.
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
 *   sizes, written in characters.
 *
 * \u escapes are decoded as json-c decodes them, so that lengths, formats,
 * facts and duplicate names are what the tree-based validator saw: a UTF-16
 * surrogate that is not half of a pair becomes U+FFFD.
 *
 * Error messages name an offset and a reason, never body content: they go
 * back to the sender and into logs. */
#include "wh_schema.h"
#include "wh_datetime.h"
#include "wh_utf8.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32     /* objects and arrays inside each other */
#define MAX_MEMBERS 8    /* rows in one table (a bit each in a mask) */
#define SMALL_OBJECT 16  /* unknown names compared pairwise up to this */

#define WIRE_EVENT_TYPE "wire.status"
#define KNOWN_STATUSES "Review, Send Ready, Reject, Error, Exception, Complete"

static const char *const known_statuses[] = {
    "Review", "Send Ready", "Reject", "Error", "Exception", "Complete", NULL
};

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
    return wh_datetime_parse(s, len, NULL) == 0 ? NULL
                                                : "must be an RFC 3339 date-time";
}

/* ---- the schema, as data ------------------------------------------------ */

typedef enum { OPTIONAL = 0, REQUIRED = 1 } presence;
/* ARRAY: an array whose items are objects with the row's members. */
typedef enum { TEXT, OBJECT, ARRAY } member_kind;
/* The wh_facts field a TEXT row fills. */
/* F_E2E, F_IMAD, F_OMAD: the wire's references, which the inbox keeps
 * for search (wh_facts). */
typedef enum {
    NO_FACT, F_ID, F_TYPE, F_TIME, F_PAYMENT, F_STATUS, F_E2E, F_IMAD, F_OMAD, N_FACTS
} fact;

typedef struct member_rule {
    const char *key;
    apr_size_t key_len;
    member_kind kind;
    presence req;
    int nonempty;                      /* TEXT */
    long max_chars;                    /* TEXT; 0: no limit */
    str_format format;                 /* TEXT */
    fact fact;                         /* TEXT */
    const struct member_rule *members; /* OBJECT, ARRAY; NULL-keyed end */
    /* OBJECT in the envelope: its members apply only when eventType is
     * this (judged when the envelope closes, once eventType is known). */
    const char *event_type;
} member_rule;

#define TEXT_ROW(key, req, nonempty, max_chars, format, fact) \
    {key, sizeof(key) - 1, TEXT, req, nonempty, max_chars, format, fact, NULL, NULL}
#define OBJECT_ROW(key, req, members) \
    {key, sizeof(key) - 1, OBJECT, req, 0, 0, NULL, NO_FACT, members, NULL}
#define ARRAY_ROW(key, req, members) \
    {key, sizeof(key) - 1, ARRAY, req, 0, 0, NULL, NO_FACT, members, NULL}
#define EVENT_ROW(key, req, members, event_type) \
    {key, sizeof(key) - 1, OBJECT, req, 0, 0, NULL, NO_FACT, members, event_type}
#define END_ROW {NULL, 0, TEXT, OPTIONAL, 0, 0, NULL, NO_FACT, NULL, NULL}
#define FITS(table) \
    _Static_assert(sizeof(table) / sizeof(table[0]) - 1 <= MAX_MEMBERS, \
                   #table " has more rows than an object can track")

/* Within a table, strings come before objects and arrays: the order the
 * problems are listed in. */
static const member_rule address[] = {
    /*        member           presence  non-empty  at most  format  fact */
    TEXT_ROW("addressLine",   OPTIONAL, 0,         0,       NULL,   NO_FACT),
    TEXT_ROW("city",          OPTIONAL, 0,         0,       NULL,   NO_FACT),
    TEXT_ROW("state",         OPTIONAL, 0,         0,       NULL,   NO_FACT),
    TEXT_ROW("postalCode",    OPTIONAL, 0,         0,       NULL,   NO_FACT),
    END_ROW
};
FITS(address);

static const member_rule institution_info[] = {
    TEXT_ROW("name",          OPTIONAL, 0,         0,       NULL,   NO_FACT),
    TEXT_ROW("routingNumber", OPTIONAL, 0,         0,       NULL,   NO_FACT),
    OBJECT_ROW("address",     OPTIONAL, address),
    END_ROW
};
FITS(institution_info);

static const member_rule beneficiary_info[] = {
    TEXT_ROW("accountNumber", OPTIONAL, 1,         34,      NULL,   NO_FACT),
    TEXT_ROW("accountType",   OPTIONAL, 0,         0,       fmt_account_type, NO_FACT),
    TEXT_ROW("name",          OPTIONAL, 1,         35,      NULL,   NO_FACT),
    OBJECT_ROW("address",     OPTIONAL, address),
    OBJECT_ROW("institutionInfo", OPTIONAL, institution_info),
    END_ROW
};
FITS(beneficiary_info);

static const member_rule originator_info[] = {
    TEXT_ROW("accountNumber", OPTIONAL, 1,         16,      NULL,   NO_FACT),
    TEXT_ROW("accountType",   OPTIONAL, 0,         0,       fmt_account_type, NO_FACT),
    TEXT_ROW("name",          OPTIONAL, 1,         35,      NULL,   NO_FACT),
    TEXT_ROW("wireCompanyId", OPTIONAL, 1,         12,      NULL,   NO_FACT),
    TEXT_ROW("wireCompanyName", OPTIONAL, 1,       40,      NULL,   NO_FACT),
    END_ROW
};
FITS(originator_info);

static const member_rule wire_info[] = {
    TEXT_ROW("paymentAmount", OPTIONAL, 1,         12,      fmt_amount, NO_FACT),
    TEXT_ROW("referenceId",   OPTIONAL, 1,         35,      NULL,   NO_FACT),
    TEXT_ROW("endToEndId",    OPTIONAL, 0,         0,       fmt_uuid, F_E2E),
    END_ROW
};
FITS(wire_info);

static const member_rule original_wire[] = {
    TEXT_ROW("remittanceInformation", OPTIONAL, 0, 140,     NULL,   NO_FACT),
    OBJECT_ROW("wireInfo",    OPTIONAL, wire_info),
    OBJECT_ROW("originatorInfo", OPTIONAL, originator_info),
    OBJECT_ROW("beneficiaryInfo", OPTIONAL, beneficiary_info),
    END_ROW
};
FITS(original_wire);

static const member_rule exception_item[] = {
    TEXT_ROW("exceptionCode", REQUIRED, 0,         0,       NULL,   NO_FACT),
    TEXT_ROW("exceptionDescription", REQUIRED, 0,  0,       NULL,   NO_FACT),
    END_ROW
};
FITS(exception_item);

static const member_rule wire_event_info[] = {
    TEXT_ROW("paymentId",     REQUIRED, 1,         0,       NULL,   F_PAYMENT),
    TEXT_ROW("status",        REQUIRED, 1,         0,       NULL,   F_STATUS),
    TEXT_ROW("IMAD",          OPTIONAL, 0,         0,       NULL,   F_IMAD),
    TEXT_ROW("OMAD",          OPTIONAL, 0,         0,       NULL,   F_OMAD),
    ARRAY_ROW("exceptionInfo", OPTIONAL, exception_item),
    OBJECT_ROW("originalWire", OPTIONAL, original_wire),
    END_ROW
};
FITS(wire_event_info);

static const member_rule wire_data[] = {
    OBJECT_ROW("wireEventInfo", REQUIRED, wire_event_info),
    END_ROW
};
FITS(wire_data);

/* The document: the envelope every event type shares; data's contents
 * only for wire.status. */
static const member_rule envelope[] = {
    TEXT_ROW("notificationId", REQUIRED, 0,        0,       fmt_uuid, F_ID),
    TEXT_ROW("eventType",     REQUIRED, 1,         0,       NULL,   F_TYPE),
    TEXT_ROW("eventDateTime", REQUIRED, 0,         0,       fmt_datetime, F_TIME),
    EVENT_ROW("data",         REQUIRED, wire_data, WIRE_EVENT_TYPE),
    END_ROW
};
FITS(envelope);

/* ---- problems ----------------------------------------------------------- */

typedef struct problem {
    struct problem *next;
    wh_problem pr;
} problem;

/* Problems in the order they will be listed. Empty: head NULL. */
typedef struct {
    problem *head, *tail;
    int n;
} problem_list;

/* Where the pass is: member names and array indexes back to the document
 * (NULL). On the stack; the JSON Pointer text is made from it only for a
 * problem, because valid bodies (nearly all) never need one. */
typedef struct where {
    const struct where *up;
    const char *key;   /* NULL: an array item, at index */
    apr_size_t index;
} where;

static const char *pointer_text(apr_pool_t *p, const where *at)
{
    const char *up;
    if (!at)
        return "";
    up = pointer_text(p, at->up);
    return at->key ? wh_schema_pointer_append(p, up, at->key)
                   : apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, up, at->index);
}

static void add_problem(apr_pool_t *p, problem_list *l, const char *pointer,
                        const char *reason)
{
    problem *pb = apr_palloc(p, sizeof(*pb));
    pb->next = NULL;
    pb->pr = (wh_problem){pointer, reason};
    if (l->tail)
        l->tail->next = pb;
    else
        l->head = pb;
    l->tail = pb;
    l->n++;
}

/* A problem with member key of the object at. */
static void add_member_problem(apr_pool_t *p, problem_list *l, const where *at,
                               const char *key, const char *reason)
{
    add_problem(p, l, wh_schema_pointer_append(p, pointer_text(p, at), key),
                reason);
}

static void append_list(problem_list *to, const problem_list *from)
{
    if (!from->head)
        return;
    if (to->tail)
        to->tail->next = from->head;
    else
        to->head = from->head;
    to->tail = from->tail;
    to->n += from->n;
}

static const char *kind_reason(member_kind k)
{
    switch (k) {
    case TEXT:
        return "must be a string";
    case ARRAY:
        return "must be an array";
    default:
        return "must be an object";
    }
}

/* ---- the scanner: bytes ------------------------------------------------- */

typedef struct {
    const char *s;
    apr_size_t len;
} text;

/* A member name no row knows, kept until its object closes. */
typedef text unknown_name;

typedef struct {
    apr_pool_t *p;
    const unsigned char *s;
    apr_size_t pos, end;
    int depth;
    const char *err;          /* why the body is not JSON; NULL while it is */
    const char *facts[N_FACTS];
    apr_array_header_t *names; /* of unknown_name, object by object; made on need */
} scan;

/* What a value was, as far as the schema cares. */
typedef enum { V_NULL, V_STRING, V_OBJECT, V_ARRAY, V_OTHER } value_type;

#define X16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
/* Bytes that end a run of plain string content: the closing quote, an
 * escape, control characters (invalid) and every non-ASCII byte (its
 * UTF-8 sequence is validated where the run stops). */
static const unsigned char string_stop[256] = {
    X16(1), X16(1),                                 /* 0x00-0x1f */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20-0x2f: '"' */
    X16(0), X16(0),                                 /* 0x30-0x4f */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50-0x5f: '\\' */
    X16(0), X16(0),                                 /* 0x60-0x7f */
    X16(1), X16(1), X16(1), X16(1), X16(1), X16(1), X16(1), X16(1)
};
#undef X16

/* RFC 8259 whitespace only: \f and \v are not. */
static const unsigned char is_ws[256] = {
    ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, [' '] = 1
};

/* The characters a number or a literal is made of. */
static int is_bare(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit((char)c)
           || c == '+' || c == '-' || c == '.';
}

static int fail(scan *sc, const char *why)
{
    if (!sc->err)
        sc->err = why;
    return -1;
}

static int fail_at(scan *sc, apr_size_t at, const char *what)
{
    return fail(sc, apr_psprintf(sc->p, "invalid JSON at offset %" APR_SIZE_T_FMT
                                 ": %s", at, what));
}

static int truncated(scan *sc)
{
    return fail(sc, "truncated JSON (the body ends inside the value)");
}

static void skip_ws(scan *sc)
{
    apr_size_t i = sc->pos;
    while (i < sc->end && is_ws[sc->s[i]])
        i++;
    sc->pos = i;
}

/* The byte at pos after whitespace; -1 at the end of the body. */
static int next_byte(scan *sc)
{
    skip_ws(sc);
    return sc->pos < sc->end ? sc->s[sc->pos] : -1;
}

/* ---- the scanner: strings ----------------------------------------------- */

static int hex_value(unsigned char c)
{
    return is_digit((char)c) ? c - '0'
           : (c >= 'a' && c <= 'f') ? c - 'a' + 10
           : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
}

/* The four hex digits at s (n bytes readable): the code unit, -1 when
 * they are not four hex digits, -2 when the body ends first. */
static long hex4(const unsigned char *s, apr_size_t n)
{
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h;
        if ((apr_size_t)k >= n)
            return -2;
        if ((h = hex_value(s[k])) < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* *i is on a backslash inside a string; leaves it after the escape. */
static int escape(scan *sc, apr_size_t *i)
{
    apr_size_t at = *i;
    long u;

    if (at + 1 >= sc->end)
        return truncated(sc);
    switch (sc->s[at + 1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r':
    case 't':
        *i = at + 2;
        return 0;
    case 'u':
        u = hex4(sc->s + at + 2, sc->end - at - 2);
        if (u == -2)
            return truncated(sc);
        if (u < 0)
            break;
        /* A decoded NUL would silently cut the value (or member name)
         * short for every C consumer downstream. */
        if (u == 0)
            return fail(sc, apr_psprintf(sc->p, "\\u0000 escape at offset %"
                                         APR_SIZE_T_FMT, at));
        *i = at + 6;
        return 0;
    }
    return fail_at(sc, at + 1, "invalid string sequence");
}

/* pos is on the opening quote; leaves it after the closing one. *out is
 * the raw content; *escaped says whether it holds escapes. */
static int string(scan *sc, text *out, int *escaped)
{
    const unsigned char *s = sc->s;
    apr_size_t i = sc->pos + 1, start = i, n;

    *escaped = 0;
    for (;;) {
        while (i < sc->end && !string_stop[s[i]])
            i++;
        if (i >= sc->end)
            return truncated(sc);
        if (s[i] == '"')
            break;
        if (s[i] == '\\') {
            *escaped = 1;
            if (escape(sc, &i) < 0)
                return -1;
        } else if (s[i] >= 0x80) {
            if ((n = wh_utf8_seq_len(s + i, sc->end - i)) == 0)
                return fail(sc, apr_psprintf(sc->p, "invalid UTF-8 at offset %"
                                             APR_SIZE_T_FMT, i));
            i += n;
        } else {
            return fail(sc, apr_psprintf(sc->p, "control character inside a "
                                         "string at offset %" APR_SIZE_T_FMT, i));
        }
    }
    out->s = (const char *)s + start;
    out->len = i - start;
    sc->pos = i + 1;
    return 0;
}

/* UTF-8 of code point cp (not a surrogate) at o; returns the bytes. */
static apr_size_t put_utf8(char *o, long cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The code point of the \u escape at s[0..n) (already checked by
 * escape()), and in *used the bytes it takes: a high surrogate followed
 * by a \u low one make a pair; any other surrogate is U+FFFD. */
static long unicode_escape(const unsigned char *s, apr_size_t n,
                           apr_size_t *used)
{
    long u = hex4(s + 2, 4), lo;

    *used = 6;
    if (u >= 0xDC00 && u <= 0xDFFF)
        return 0xFFFD;
    if (u < 0xD800 || u > 0xDBFF)
        return u;
    if (n < 12 || s[6] != '\\' || s[7] != 'u'
        || (lo = hex4(s + 8, 4)) < 0xDC00 || lo > 0xDFFF)
        return 0xFFFD;
    *used = 12;
    return 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
}

static char simple_escape(unsigned char c)
{
    switch (c) {
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return (char)c; /* " \ / */
    }
}

/* The value of a string that holds escapes, in p. Every escape is at
 * least as long as what it stands for, so len bytes are enough. */
static text decode(apr_pool_t *p, text raw)
{
    const unsigned char *s = (const unsigned char *)raw.s;
    char *out = apr_palloc(p, raw.len + 1);
    apr_size_t i = 0, o = 0, used;

    while (i < raw.len) {
        if (s[i] != '\\') {
            out[o++] = (char)s[i++];
        } else if (s[i + 1] == 'u') {
            o += put_utf8(out + o, unicode_escape(s + i, raw.len - i, &used));
            i += used;
        } else {
            out[o++] = simple_escape(s[i + 1]);
            i += 2;
        }
    }
    out[o] = '\0';
    return (text){out, o};
}

/* ---- the scanner: numbers and literals ---------------------------------- */

static apr_size_t skip_digits(const unsigned char *s, apr_size_t i, apr_size_t n)
{
    while (i < n && is_digit((char)s[i]))
        i++;
    return i;
}

/* RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int is_json_number(const unsigned char *s, apr_size_t n)
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
        if ((j = skip_digits(s, i + 1, n)) == i + 1)
            return 0;
        i = j;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if ((j = skip_digits(s, i, n)) == i)
            return 0;
        i = j;
    }
    return i == n;
}

/* A number, true, false or null at pos. */
static int bare_value(scan *sc, value_type *type)
{
    apr_size_t start = sc->pos, i = start, n;
    const unsigned char *s = sc->s + start;

    while (i < sc->end && is_bare(sc->s[i]))
        i++;
    n = i - start;
    if (n == 0)
        return fail_at(sc, start, "unexpected character");
    if (n == 4 && memcmp(s, "null", 4) == 0)
        *type = V_NULL;
    else if ((n == 4 && memcmp(s, "true", 4) == 0)
             || (n == 5 && memcmp(s, "false", 5) == 0) || is_json_number(s, n))
        *type = V_OTHER;
    else
        return fail(sc, apr_psprintf(sc->p, "invalid number or literal at "
                                     "offset %" APR_SIZE_T_FMT, start));
    sc->pos = i;
    return 0;
}

/* ---- objects and arrays ------------------------------------------------- */

static int object(scan *sc, const where *at, const member_rule *rules,
                  problem_list *out);
static int array(scan *sc, const where *at, const member_rule *item_rules,
                 problem_list *out);

/* Any value at pos, checked as JSON only (no schema applies to it). */
static int plain_value(scan *sc, value_type *type)
{
    text t;
    int escaped;

    switch (sc->pos < sc->end ? sc->s[sc->pos] : -1) {
    case -1:
        return truncated(sc);
    case '{':
        *type = V_OBJECT;
        return object(sc, NULL, NULL, NULL);
    case '[':
        *type = V_ARRAY;
        return array(sc, NULL, NULL, NULL);
    case '"':
        *type = V_STRING;
        return string(sc, &t, &escaped);
    case '\'':
        return fail(sc, apr_psprintf(sc->p, "single-quoted string at offset %"
                                     APR_SIZE_T_FMT, sc->pos));
    default:
        return bare_value(sc, type);
    }
}

static int open_container(scan *sc)
{
    if (++sc->depth > MAX_DEPTH)
        return fail(sc, apr_psprintf(sc->p, "nesting deeper than %d", MAX_DEPTH));
    sc->pos++;
    return 0;
}

/* After a value inside a container: ',' (then *more) or the closing
 * byte. */
static int after_item(scan *sc, unsigned char close, const char *expected,
                      int *more)
{
    int c = next_byte(sc);

    if (c == ',' || c == close) {
        *more = c == ',';
        sc->pos++;
        return 0;
    }
    return c < 0 ? truncated(sc) : fail_at(sc, sc->pos, expected);
}

/* Items of an array at pos. With item_rules, each item must be an object
 * with those members; problems go to out in item order. */
static int array(scan *sc, const where *at, const member_rule *item_rules,
                 problem_list *out)
{
    apr_size_t index = 0;
    value_type t;
    int more = 1;

    if (open_container(sc) < 0)
        return -1;
    if (next_byte(sc) == ']') {
        sc->pos++;
        more = 0;
    }
    for (; more; index++) {
        where item = {at, NULL, index};
        int c = next_byte(sc);
        if (item_rules && c == '{') {
            if (object(sc, &item, item_rules, out) < 0)
                return -1;
        } else {
            if (c == ']')
                return fail_at(sc, sc->pos, "unexpected character");
            if (plain_value(sc, &t) < 0)
                return -1;
            if (item_rules)
                add_problem(sc->p, out, pointer_text(sc->p, &item),
                            "must be an object");
        }
        if (after_item(sc, ']', "array value separator ',' expected", &more) < 0)
            return -1;
    }
    sc->depth--;
    return 0;
}

/* What an object under rules found, row by row, until it closes. */
typedef struct {
    unsigned seen;                       /* written in the body */
    unsigned present;                    /* ... and not null */
    const char *reason[MAX_MEMBERS];     /* the member's own problem */
    problem_list inside[MAX_MEMBERS];    /* problems inside its value */
} member_found;

static void take_fact(scan *sc, fact f, text v)
{
    if (f != NO_FACT)
        sc->facts[f] = apr_pstrmemdup(sc->p, v.s, v.len);
}

/* The first rule a string value breaks, or NULL. It cannot hold a NUL or
 * invalid UTF-8: the JSON checks refuse both before a value is taken. */
static const char *text_reason(apr_pool_t *p, const member_rule *r, text v)
{
    long chars;

    if (r->nonempty && v.len == 0)
        return "must not be empty";
    /* characters never outnumber bytes: count only past the limit */
    if (r->max_chars && v.len > (apr_size_t)r->max_chars
        && (chars = wh_utf8_length(v.s, v.len)) > r->max_chars)
        return apr_psprintf(p, "must be at most %ld characters (got %ld)",
                            r->max_chars, chars);
    return r->format ? r->format(v.s, v.len) : NULL;
}

/* The value of the member of rule r, at pos. Returns 1 when it is null
 * (absent, for the schema), 0 otherwise, -1 when the body is not JSON. */
static int member_value(scan *sc, const where *at, const member_rule *r,
                        const char **reason, problem_list *inside)
{
    where here = {at, r->key, 0};
    value_type t;
    text v;
    int c = sc->s[sc->pos], escaped;

    if (r->kind == OBJECT && c == '{')
        return object(sc, &here, r->members, inside);
    if (r->kind == ARRAY && c == '[')
        return array(sc, &here, r->members, inside);
    if (r->kind == TEXT && c == '"') {
        if (string(sc, &v, &escaped) < 0)
            return -1;
        if (escaped)
            v = decode(sc->p, v);
        take_fact(sc, r->fact, v);
        *reason = text_reason(sc->p, r, v);
        return 0;
    }
    if (plain_value(sc, &t) < 0)
        return -1;
    if (t == V_NULL)
        return 1;
    *reason = kind_reason(r->kind);
    return 0;
}

/* The row for member name n, or -1. */
static int row_of(const member_rule *rules, text n)
{
    for (int i = 0; rules[i].key; i++)
        if (rules[i].key_len == n.len && memcmp(rules[i].key, n.s, n.len) == 0)
            return i;
    return -1;
}

static int duplicate(scan *sc)
{
    return fail(sc, "duplicate member name in an object");
}

static int name_cmp(const void *a, const void *b)
{
    const unknown_name *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->s, y->s, x->len);
}

/* The names no row knows, from index from on, are one object's: each must
 * differ from the others. They are dropped afterwards. */
static int unknown_names_unique(scan *sc, int from)
{
    unknown_name *v;
    int n;

    if (!sc->names || (n = sc->names->nelts - from) < 2)
        goto done;
    v = (unknown_name *)sc->names->elts + from;
    if (n <= SMALL_OBJECT) {
        for (int i = 1; i < n; i++)
            for (int j = 0; j < i; j++)
                if (name_cmp(&v[i], &v[j]) == 0)
                    return duplicate(sc);
    } else {
        qsort(v, (size_t)n, sizeof(*v), name_cmp);
        for (int i = 1; i < n; i++)
            if (name_cmp(&v[i], &v[i - 1]) == 0)
                return duplicate(sc);
    }
done:
    if (sc->names)
        sc->names->nelts = from;
    return 0;
}

/* One "name": value pair of an object, pos on the name's quote. */
static int pair(scan *sc, const where *at, const member_rule *rules,
                member_found *f)
{
    text n;
    value_type t;
    int escaped, row, rv;

    if (string(sc, &n, &escaped) < 0)
        return -1;
    if (escaped)
        n = decode(sc->p, n);
    if (next_byte(sc) != ':')
        return sc->pos < sc->end ? fail_at(sc, sc->pos, "object property name "
                                           "separator ':' expected")
                                 : truncated(sc);
    sc->pos++;
    if (next_byte(sc) < 0)
        return truncated(sc);
    if (rules && (row = row_of(rules, n)) >= 0) {
        if (f->seen & (1u << row))
            return duplicate(sc);
        f->seen |= 1u << row;
        rv = member_value(sc, at, &rules[row], &f->reason[row], &f->inside[row]);
        if (rv == 0)
            f->present |= 1u << row;
        return rv < 0 ? -1 : 0;
    }
    if (!sc->names)
        sc->names = apr_array_make(sc->p, SMALL_OBJECT, sizeof(unknown_name));
    APR_ARRAY_PUSH(sc->names, unknown_name) = n;
    return plain_value(sc, &t);
}

/* Whether the members of row r apply to this notification. */
static int row_applies(const scan *sc, const member_rule *r)
{
    return !r->event_type
           || (sc->facts[F_TYPE] && strcmp(sc->facts[F_TYPE], r->event_type) == 0);
}

/* Forgets the facts taken inside members that turned out not to apply. */
static void forget_facts(scan *sc, const member_rule *rules)
{
    for (; rules && rules->key; rules++) {
        if (rules->fact != NO_FACT)
            sc->facts[rules->fact] = NULL;
        forget_facts(sc, rules->members);
    }
}

/* The problems of a closed object, in table order. */
static void list_found(scan *sc, const where *at, const member_rule *rules,
                       member_found *f, problem_list *out)
{
    for (int i = 0; rules[i].key; i++) {
        const member_rule *r = &rules[i];
        if (f->reason[i])
            add_member_problem(sc->p, out, at, r->key, f->reason[i]);
        else if (r->req == REQUIRED && !(f->present & (1u << i)))
            add_member_problem(sc->p, out, at, r->key, "is required");
        if (row_applies(sc, r))
            append_list(out, &f->inside[i]);
        else
            forget_facts(sc, r->members);
    }
}

/* An object at pos. With rules, its members are checked against them and
 * its problems go to out; without, it is checked as JSON only. */
static int object(scan *sc, const where *at, const member_rule *rules,
                  problem_list *out)
{
    member_found f;
    int more = 1, c, names_from = sc->names ? sc->names->nelts : 0;

    if (open_container(sc) < 0)
        return -1;
    f.seen = f.present = 0;
    if (rules) {
        for (int i = 0; rules[i].key; i++) {
            f.reason[i] = NULL;
            f.inside[i] = (problem_list){NULL, NULL, 0};
        }
    }
    if ((c = next_byte(sc)) == '}') {
        sc->pos++;
        more = 0;
    }
    while (more) {
        if (c != '"')
            return c < 0 ? truncated(sc)
                   : c == '\'' ? fail(sc, apr_psprintf(sc->p, "single-quoted "
                                      "string at offset %" APR_SIZE_T_FMT, sc->pos))
                   : fail_at(sc, sc->pos, c == '}' ? "unexpected character"
                             : "quoted object property name expected");
        if (pair(sc, at, rules, &f) < 0
            || after_item(sc, '}', "object value separator ',' expected", &more) < 0)
            return -1;
        c = next_byte(sc);
    }
    if (unknown_names_unique(sc, names_from) < 0)
        return -1;
    if (rules)
        list_found(sc, at, rules, &f, out);
    sc->depth--;
    return 0;
}

/* ---- entry points ------------------------------------------------------- */

const char *wh_schema_pointer_append(apr_pool_t *p, const char *base,
                                     const char *name)
{
    apr_size_t blen = strlen(base), extra = 0, o;
    char *out;

    for (const char *q = name; *q; q++)
        extra += (*q == '~' || *q == '/');
    out = apr_palloc(p, blen + 1 + strlen(name) + extra + 1);
    memcpy(out, base, blen);
    o = blen;
    out[o++] = '/';
    for (const char *q = name; *q; q++) {
        if (*q == '~' || *q == '/') {
            out[o++] = '~';
            out[o++] = *q == '~' ? '0' : '1';
        } else {
            out[o++] = *q;
        }
    }
    out[o] = '\0';
    return out;
}

int wh_schema_status_known(const char *status)
{
    if (!status)
        return 0;
    for (const char *const *k = known_statuses; *k; k++)
        if (strcmp(status, *k) == 0)
            return 1;
    return 0;
}

/* The document at pos: the envelope when it is an object. */
static int document(scan *sc, problem_list *out)
{
    value_type t;

    if (next_byte(sc) < 0)
        return fail(sc, "empty body");
    if (sc->s[sc->pos] == '{')
        return object(sc, NULL, envelope, out);
    if (plain_value(sc, &t) < 0)
        return -1;
    add_problem(sc->p, out, "", "must be an object");
    return 0;
}

/* Why a body the scanner refused is not JSON. A NUL byte or a byte order
 * mark is named wherever it is, before any other fault. */
static const char *not_json(const scan *sc, const char *body, apr_size_t len)
{
    const char *nul = memchr(body, '\0', len);
    if (nul)
        return apr_psprintf(sc->p, "NUL byte at offset %" APR_SIZE_T_FMT,
                            (apr_size_t)(nul - body));
    if (len >= 3 && memcmp(body, "\xEF\xBB\xBF", 3) == 0)
        return "byte order mark before the JSON value";
    return sc->err;
}

static void give_facts(const scan *sc, wh_facts *facts)
{
    facts->notification_id = sc->facts[F_ID];
    facts->event_type = sc->facts[F_TYPE];
    facts->event_time = sc->facts[F_TIME];
    facts->payment_id = sc->facts[F_PAYMENT];
    facts->status = sc->facts[F_STATUS];
    facts->status_known = wh_schema_status_known(sc->facts[F_STATUS]);
    facts->end_to_end_id = sc->facts[F_E2E];
    facts->imad = sc->facts[F_IMAD];
    facts->omad = sc->facts[F_OMAD];
}

int wh_schema_check(apr_pool_t *p, const char *body, apr_size_t len,
                    const wh_schema_opts *opts, apr_array_header_t *problems,
                    wh_facts *facts, const char **why)
{
    scan sc;
    problem_list listed = {NULL, NULL, 0};
    const char *status;

    *why = NULL;
    if (!body) {
        *why = len ? "no body" : "empty body";
        return WH_SCHEMA_NOT_JSON;
    }
    memset(&sc, 0, sizeof(sc));
    sc.p = p;
    sc.s = (const unsigned char *)body;
    sc.end = len;
    if (document(&sc, &listed) == 0 && next_byte(&sc) >= 0)
        fail(&sc, apr_psprintf(p, "unexpected bytes after the JSON value at "
                               "offset %" APR_SIZE_T_FMT, sc.pos));
    if (sc.err) {
        *why = not_json(&sc, body, len);
        return WH_SCHEMA_NOT_JSON;
    }
    status = sc.facts[F_STATUS];
    /* An empty status has already been reported as such. */
    if (status && *status && !wh_schema_status_known(status) && opts
        && opts->unknown_status_reject)
        add_problem(p, &listed, "/data/wireEventInfo/status",
                    "is not one of " KNOWN_STATUSES);
    for (problem *pb = listed.head; problems && pb; pb = pb->next)
        APR_ARRAY_PUSH(problems, wh_problem) = pb->pr;
    if (facts)
        give_facts(&sc, facts);
    return listed.n;
}
