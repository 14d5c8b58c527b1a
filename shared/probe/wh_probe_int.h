#ifndef WH_PROBE_INT_H
#define WH_PROBE_INT_H
/* The probe's request parts as the vectors file gives them, parsed once
 * (wh_probe_vectors.c) and turned into a request by wh_probe_request.c.
 * Each field is one documented transformation (docs/probe.md). */
#include "wh_probe.h"
#include <json-c/json.h>

typedef enum {
    /* on the JSON tree */
    WH_BODY_SET = 0, /* at := value */
    WH_BODY_REMOVE,  /* delete at */
    WH_BODY_FILL,    /* at := length copies of text */
    WH_BODY_NEST,    /* at := depth nested arrays */
    WH_BODY_PAD,     /* at := "x"... so the body is MaxBodySize + n */
    /* on the serialised bytes (the tree is serialised at the first) */
    WH_BODY_DUPLICATE, /* root member at written twice, value first */
    WH_BODY_RAW,       /* the body := text */
    WH_BODY_PREPEND,
    WH_BODY_APPEND,
    WH_BODY_REPLACE /* the first find := text */
} wh_body_op_kind;

typedef struct {
    wh_body_op_kind kind;
    const char *at;     /* JSON pointer (RFC 6901) */
    json_object *value; /* set, duplicate (copied at each use) */
    const char *text;   /* from "text" or "hex": may hold any byte */
    apr_size_t text_len;
    const char *find;
    apr_size_t find_len;
    long n; /* fill length, nest depth, pad excess */
} wh_body_op;

typedef enum {
    WH_AUTH_VALID = 0,
    WH_AUTH_NONE,
    WH_AUTH_WRONG_PASSWORD,
    WH_AUTH_UNKNOWN_USER,
    WH_AUTH_HEADER /* a literal Authorization value */
} wh_auth_kind;

typedef struct wh_ts_spec {
    int omit;
    long tolerances; /* shift: now + tolerances * tolerance */
    long seconds;    /*        + seconds */
    int other_unit;
    const char *suffix;
    const struct wh_ts_spec *repeat; /* an extra header before this one */
} wh_ts_spec;

typedef enum {
    WH_SIG_VALID = 0,
    WH_SIG_RANDOM,
    WH_SIG_TRUNCATE,
    WH_SIG_APPEND,
    WH_SIG_REPLACE,
    WH_SIG_UPPERCASE,
    WH_SIG_PREFIX,
    WH_SIG_OMIT,
    WH_SIG_REPEAT /* first, then the valid one */
} wh_sig_kind;

typedef struct wh_sig_spec {
    wh_sig_kind kind;
    long n; /* truncate length, replace index */
    const char *text;
    const struct wh_sig_spec *first;
} wh_sig_spec;

typedef enum {
    WH_URL_SAME = 0,
    WH_URL_SCHEME,
    WH_URL_HOST,
    WH_URL_PORT,
    WH_URL_PATH_PART,
    WH_URL_QUERY
} wh_url_change;

struct wh_probe_parts {
    const char *method; /* sent; POST */
    int content_type_omitted;
    const char *content_type; /* application/json */
    wh_auth_kind auth;
    const char *auth_header;
    wh_ts_spec timestamp;
    int sign_other_secret;
    const char *sign_method; /* NULL: the method sent */
    wh_url_change sign_url;
    wh_sig_spec signature;
    apr_array_header_t *body; /* of wh_body_op */
    apr_array_header_t *after_signing;
    wh_probe_replay replay;
    wh_probe_pace pace;
};

/* The URL signed with one part changed; NULL and *why when url has no
 * such part (a path-only URL has no scheme, host or port). */
const char *wh_probe_url_change(apr_pool_t *p, const char *url,
                                wh_url_change change, const char **why);

/* Runs ops over a body: tree (owned, may be replaced) or, once a byte op
 * ran, text. Returns NULL or why it failed. */
typedef struct {
    json_object *tree; /* NULL once serialised */
    char *text;
    apr_size_t len;
} wh_body_state;

const char *wh_probe_body_apply(apr_pool_t *p, wh_body_state *st,
                                const apr_array_header_t *ops,
                                apr_int64_t max_body_size);
/* The bytes of the body (serialising the tree if still one). */
void wh_probe_body_bytes(apr_pool_t *p, wh_body_state *st);
/* The bytes the body would have now, the state left as it is. */
const char *wh_probe_body_snapshot(apr_pool_t *p, const wh_body_state *st,
                                   apr_size_t *len);
/* A deep copy of the notification, freed with p. */
json_object *wh_probe_body_tree(apr_pool_t *p, json_object *notification);

/* RFC 6901 pointer lookup in a tree: the parent of the last token and
 * the token (unescaped). Returns NULL or why the pointer is bad. */
const char *wh_probe_pointer_parent(apr_pool_t *p, json_object *root,
                                    const char *pointer, json_object **parent,
                                    const char **last);

/* At most max bytes of b as printable UTF-8 text: control characters
 * and bytes that are not UTF-8 written as \xNN; "..." when cut. */
const char *wh_probe_printable(apr_pool_t *p, const char *b, apr_size_t len,
                               apr_size_t max);
/* The results with outcome o, or of graded severity s among failures. */
int wh_probe_count(const wh_probe_report *rep, int outcome, int severity);

#endif
