#ifndef WH_SCHEMA_H
#define WH_SCHEMA_H
#include <apr_pools.h>
#include <apr_tables.h>
#include "wh_verdict.h"

typedef struct {
    int unknown_status_reject;   /* UnknownStatus reject */
} wh_schema_opts;

/* wh_schema_check()'s answer for a body that is not JSON. */
#define WH_SCHEMA_NOT_JSON (-1)

/* Checks body[0..len) in one pass: strict JSON (exactly one RFC 8259
 * value, valid UTF-8, no NUL byte or \u0000 escape, no duplicate member
 * name, nesting at most 32) and the notification schema.
 * Not JSON: returns WH_SCHEMA_NOT_JSON, *why says why (an offset and a
 * reason, never body content), problems and facts are left alone.
 * JSON: returns the number of problems appended to problems (wh_problem,
 * JSON pointer + reason; may be NULL), and fills what the body has of the
 * facts and of the wire's references (strings in p; user and signed_at
 * are left alone). */
int wh_schema_check(apr_pool_t *p, const char *body, apr_size_t len,
                    const wh_schema_opts *opts, apr_array_header_t *problems,
                    wh_facts *facts, const char **why);

/* 1 when status is one of Review, Send Ready, Reject, Error, Exception,
 * Complete (exact, case-sensitive). */
int wh_schema_status_known(const char *status);

/* base + "/" + name, escaped per RFC 6901 (~ as ~0, / as ~1). */
const char *wh_schema_pointer_append(apr_pool_t *p, const char *base,
                                     const char *name);

#endif
